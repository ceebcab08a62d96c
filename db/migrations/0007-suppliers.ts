import type { Migration } from './types.js';

/**
 * Upstream suppliers: each talks through an installed upstream plugin that declares the
 * supplier's interface type as its provider key, with its own address, account and sealed API
 * key. Product upstream bindings now point at a supplier and remember the price rule of their
 * import, so a re-sync applies the same markup.
 */
export const migration0007Suppliers: Migration = {
  name: '0007-suppliers',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE suppliers (
        id SERIAL PRIMARY KEY,
        code VARCHAR(32) NOT NULL UNIQUE CHECK (code ~ '^[a-z0-9][a-z0-9_-]{1,31}$'),
        name VARCHAR(64) NOT NULL,
        interface_type VARCHAR(32) NOT NULL CHECK (interface_type IN ('upstream_finance_api', 'hosting_panel_api')),
        plugin_id INTEGER REFERENCES plugins(id),
        base_url VARCHAR(255) NOT NULL,
        account VARCHAR(191) NOT NULL,
        api_key_sealed TEXT NOT NULL DEFAULT '',
        status VARCHAR(16) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        remark VARCHAR(255) NOT NULL DEFAULT '',
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX suppliers_plugin_idx ON suppliers (plugin_id);
      ALTER TABLE product_upstream_bindings
        ADD CONSTRAINT product_upstream_bindings_supplier_fk FOREIGN KEY (supplier_id) REFERENCES suppliers(id),
        ADD COLUMN price_rule JSONB NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(price_rule) = 'object'),
        ADD COLUMN synced_at TIMESTAMPTZ;
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE product_upstream_bindings DROP CONSTRAINT IF EXISTS product_upstream_bindings_supplier_fk,
        DROP COLUMN IF EXISTS price_rule, DROP COLUMN IF EXISTS synced_at;
      DROP TABLE IF EXISTS suppliers;
    `);
  },
};

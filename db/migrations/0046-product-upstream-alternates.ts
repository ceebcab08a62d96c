import type { Migration } from './types.js';

/**
 * Several upstream bindings per product (issue #38, docs/fulfilment.md "Several suppliers per
 * product"). Expand only, so the release before keeps running untouched:
 * - `product_upstream_bindings` keeps `product_id` as its key: its row stays the spec's single
 *   binding, the first one (priority 0), read and upserted by product (`ON CONFLICT (product_id)`)
 *   by the release before exactly as now.
 * - `product_upstream_alternates` (new) holds the further bindings, priority 1, 2, … unique per
 *   product (deferred, so a reorder is one statement), each with its own supplier, plugin, real
 *   provider key, upstream product, config template and price rule (the import's markup). A
 *   supplier deleted by the release before (which counts only the first binding) takes its
 *   further bindings with it; a plugin uninstalled by force leaves them without a plugin, like the
 *   first binding.
 * - `products.upstream_routing` (new, default `priority`): the product's routing policy,
 *   `priority` or `lowest_cost`. On the product, not in the first binding's free-form
 *   `provisioning_policy` (a product write replaces that object whole, the release before's too)
 *   nor on that row (unbinding deletes it).
 */
export const migration0046ProductUpstreamAlternates: Migration = {
  name: '0046-product-upstream-alternates',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE IF NOT EXISTS product_upstream_alternates (
        id SERIAL PRIMARY KEY,
        product_id INTEGER NOT NULL REFERENCES products(id),
        priority INTEGER NOT NULL CHECK (priority >= 1),
        supplier_id INTEGER NOT NULL REFERENCES suppliers(id) ON DELETE CASCADE,
        plugin_id INTEGER REFERENCES plugins(id) ON DELETE SET NULL,
        provider_key VARCHAR(64) NOT NULL DEFAULT '',
        upstream_product_id VARCHAR(64) NOT NULL CHECK (upstream_product_id ~ '^[1-9][0-9]{0,9}$'),
        config_template JSONB NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(config_template) = 'object'),
        price_rule JSONB NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(price_rule) = 'object'),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT product_upstream_alternates_priority_key UNIQUE (product_id, priority) DEFERRABLE INITIALLY DEFERRED,
        CONSTRAINT product_upstream_alternates_upstream_key UNIQUE (product_id, supplier_id, upstream_product_id)
      );
      CREATE INDEX IF NOT EXISTS product_upstream_alternates_supplier_idx ON product_upstream_alternates (supplier_id);
      CREATE INDEX IF NOT EXISTS product_upstream_alternates_plugin_idx ON product_upstream_alternates (plugin_id);
      ALTER TABLE products ADD COLUMN IF NOT EXISTS upstream_routing VARCHAR(16) NOT NULL DEFAULT 'priority'
        CONSTRAINT products_upstream_routing_check CHECK (upstream_routing IN ('priority', 'lowest_cost'));
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP TABLE IF EXISTS product_upstream_alternates;
      ALTER TABLE products DROP COLUMN IF EXISTS upstream_routing;
    `);
  },
};

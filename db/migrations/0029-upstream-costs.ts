import type { Migration } from './types.js';

/**
 * What each sale cost us (issue #29, docs/economics.md): one row per paid upstream bill (the
 * purchase of a provisioning, a renewal, a traffic package or an upgrade), written in the
 * transaction that records the upstream payment. Its amount is what the supplier charged as its
 * invoice answers it; NULL (never zero) when the upstream answered no amount. A provisioning's
 * binding now remembers its bill's amount (from the settle answer) and when the bill was paid.
 */
export const migration0029UpstreamCosts: Migration = {
  name: '0029-upstream-costs',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE service_upstream_bindings
        ADD COLUMN upstream_amount NUMERIC(12,2) CHECK (upstream_amount IS NULL OR upstream_amount >= 0),
        ADD COLUMN upstream_paid_at TIMESTAMPTZ;

      CREATE TABLE upstream_costs (
        id BIGSERIAL PRIMARY KEY,
        service_id INTEGER NOT NULL REFERENCES services(id),
        invoice_id INTEGER NOT NULL REFERENCES invoices(id),
        supplier_id INTEGER NOT NULL REFERENCES suppliers(id),
        product_id INTEGER NOT NULL REFERENCES products(id),
        kind VARCHAR(16) NOT NULL CHECK (kind IN ('provision', 'renew', 'traffic_package', 'upgrade')),
        upstream_invoice_id BIGINT NOT NULL,
        amount NUMERIC(12,2) CHECK (amount IS NULL OR amount >= 0),
        currency VARCHAR(3) NOT NULL DEFAULT 'CNY' CHECK (currency = 'CNY'),
        via VARCHAR(16) NOT NULL CHECK (via IN ('paid', 'reconciled')),
        recorded_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CONSTRAINT upstream_costs_upstream_invoice_once UNIQUE (supplier_id, upstream_invoice_id),
        CONSTRAINT upstream_costs_once_per_invoice UNIQUE (service_id, invoice_id)
      );
      CREATE INDEX upstream_costs_recorded_idx ON upstream_costs (recorded_at);
      CREATE INDEX upstream_costs_invoice_idx ON upstream_costs (invoice_id);
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP TABLE IF EXISTS upstream_costs;
      ALTER TABLE service_upstream_bindings DROP COLUMN upstream_amount, DROP COLUMN upstream_paid_at;
    `);
  },
};

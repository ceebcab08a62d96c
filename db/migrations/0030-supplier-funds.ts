import type { Migration } from './types.js';

/**
 * Upstream funds (issue #29, docs/economics.md): the last balance read of each supplier
 * with its runway forecast (`supplier_balances`), and the funds alerts admins are told of once
 * (`supplier_funds_alerts`): a shortage once per supplier and episode (one open row per supplier,
 * closed when a check finds the balance enough again), a runway shortfall once per supplier and
 * day.
 */
export const migration0030SupplierFunds: Migration = {
  name: '0030-supplier-funds',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE supplier_balances (
        supplier_id INTEGER PRIMARY KEY REFERENCES suppliers(id) ON DELETE CASCADE,
        balance NUMERIC(14,2) NOT NULL,
        currency VARCHAR(3) NOT NULL DEFAULT 'CNY',
        read_at TIMESTAMPTZ NOT NULL,
        runway_days INTEGER CHECK (runway_days IS NULL OR runway_days >= 1),
        runway_cost NUMERIC(14,2) CHECK (runway_cost IS NULL OR runway_cost >= 0),
        runway_renewals INTEGER CHECK (runway_renewals IS NULL OR runway_renewals >= 0),
        runway_estimated INTEGER CHECK (runway_estimated IS NULL OR runway_estimated >= 0),
        runway_at TIMESTAMPTZ,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE TABLE supplier_funds_alerts (
        id SERIAL PRIMARY KEY,
        supplier_id INTEGER NOT NULL REFERENCES suppliers(id) ON DELETE CASCADE,
        kind VARCHAR(16) NOT NULL CHECK (kind IN ('shortage', 'runway')),
        occasion VARCHAR(64) NOT NULL,
        balance NUMERIC(14,2),
        needed NUMERIC(14,2),
        message VARCHAR(255) NOT NULL,
        workflow_id VARCHAR(128),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        resolved_at TIMESTAMPTZ,
        UNIQUE (supplier_id, kind, occasion)
      );
      CREATE UNIQUE INDEX supplier_funds_alerts_open_shortage ON supplier_funds_alerts (supplier_id) WHERE kind = 'shortage' AND resolved_at IS NULL;
      CREATE INDEX supplier_funds_alerts_recent ON supplier_funds_alerts (created_at DESC, id DESC);
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`DROP TABLE IF EXISTS supplier_funds_alerts; DROP TABLE IF EXISTS supplier_balances;`);
  },
};

import type { Migration } from './types.js';

/**
 * Supplier health (issue #38, docs/fulfilment.md "Supplier health"): two new tables, so the
 * release before keeps running untouched (it neither reads nor writes them).
 * - `supplier_calls`: one row per upstream call the platform makes (`invokeSupplierPlugin`), its
 *   outcome (failed or not, by the rule of `domain/suppliers/health.ts`) and latency; the sliding
 *   window is read from `(supplier_id, created_at)`, the retention task trims by `created_at`.
 * - `supplier_breakers`: the circuit breaker of a supplier, one row, written only by guarded
 *   conditional updates (closed → open, open → half_open claiming the one probe, half_open →
 *   closed or open). `episode` counts the openings: the "down" and "back" alerts are keyed by it.
 *   No row reads as closed.
 */
export const migration0045SupplierHealth: Migration = {
  name: '0045-supplier-health',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE IF NOT EXISTS supplier_calls (
        id BIGSERIAL PRIMARY KEY,
        supplier_id INTEGER NOT NULL REFERENCES suppliers(id) ON DELETE CASCADE,
        action VARCHAR(64) NOT NULL,
        failed BOOLEAN NOT NULL,
        error_code VARCHAR(64),
        duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX IF NOT EXISTS supplier_calls_window_idx ON supplier_calls (supplier_id, created_at);
      CREATE INDEX IF NOT EXISTS supplier_calls_created_idx ON supplier_calls (created_at);
      CREATE TABLE IF NOT EXISTS supplier_breakers (
        supplier_id INTEGER PRIMARY KEY REFERENCES suppliers(id) ON DELETE CASCADE,
        state VARCHAR(16) NOT NULL DEFAULT 'closed' CHECK (state IN ('closed', 'open', 'half_open')),
        episode INTEGER NOT NULL DEFAULT 0 CHECK (episode >= 0),
        opened_at TIMESTAMPTZ,
        probe_claimed_at TIMESTAMPTZ,
        closed_at TIMESTAMPTZ,
        changed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK (state = 'closed' OR opened_at IS NOT NULL),
        CHECK (state <> 'half_open' OR probe_claimed_at IS NOT NULL)
      );
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query('DROP TABLE IF EXISTS supplier_breakers; DROP TABLE IF EXISTS supplier_calls;');
  },
};

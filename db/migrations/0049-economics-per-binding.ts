import { extendCheck } from './extend-check.js';
import type { Migration } from './types.js';

/**
 * Economics after a product has several bindings and a provisioning may fail over (issue #38,
 * docs/economics.md). Expand only:
 * - Reconciliation: two finding kinds for what a failover left at the supplier it moved away from
 *   (`service_upstream_attempts`, migration 0048): `paid_after_failover` (a bill of the attempt, or
 *   one naming its host, paid at that supplier after all) and `live_after_failover` (the attempt's
 *   host running there). An unpaid bill or a pending host of an attempt is no finding.
 * - Price drift per binding: a further binding's price points are stored under their own
 *   `option_key` (`<point>@<binding id>`), because the release before keeps writing observations
 *   with `ON CONFLICT (product_id, billing_period, option_key)` and findings with
 *   `ON CONFLICT ON CONSTRAINT upstream_price_findings_once`: both keys stay as they are. Each
 *   finding names the binding it was seen on: `binding_id` (the further binding's id; null for the
 *   first binding, which is what the release before writes), `supplier_id`, and `point_key` (the
 *   point without the suffix; null in rows of the release before, where it is `option_key`).
 *   Existing findings get their product's first binding's supplier and their own point.
 */
export const migration0049EconomicsPerBinding: Migration = {
  name: '0049-economics-per-binding',
  async up({ context: sequelize }) {
    await sequelize.query(extendCheck('reconciliation_findings', 'kind', ['paid_after_failover', 'live_after_failover']));
    await sequelize.query(`
      ALTER TABLE upstream_price_findings
        ADD COLUMN IF NOT EXISTS binding_id INTEGER,
        ADD COLUMN IF NOT EXISTS supplier_id INTEGER REFERENCES suppliers(id) ON DELETE SET NULL,
        ADD COLUMN IF NOT EXISTS point_key VARCHAR(64);
      UPDATE upstream_price_findings f SET point_key = f.option_key,
             supplier_id = (SELECT b.supplier_id FROM product_upstream_bindings b WHERE b.product_id = f.product_id)
       WHERE f.point_key IS NULL AND f.binding_id IS NULL;
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE upstream_price_findings DROP COLUMN IF EXISTS point_key, DROP COLUMN IF EXISTS supplier_id, DROP COLUMN IF EXISTS binding_id;
      DELETE FROM reconciliation_findings WHERE kind IN ('paid_after_failover', 'live_after_failover');
    `);
  },
};

import { buildIndexConcurrently } from './concurrent-index.js';
import type { Migration } from './types.js';

/**
 * One store of funds alerts (issue #36): a supplier funds shortage and a runway shortfall were
 * written twice, to `supplier_funds_alerts` and to `admin_alerts`. From here they are admin alerts
 * only, the episode in the alert's new `detail` (supplier, occasion, balance, needed, the work that
 * found it, when it started and ended; docs/economics.md "Admin alerts").
 *
 * - `detail`: JSONB, `{}` for the other kinds (and for rows an older release writes).
 * - Every `supplier_funds_alerts` row is copied into its alert (key `funds-short:<id>` or
 *   `runway:<id>`, the keys the code raised them under): the detail added to the alert raised
 *   with it, or the alert inserted when there was none.
 * - `admin_alerts_open_funds_short`: one open shortage per supplier (what the old table's partial
 *   UNIQUE index held), so a shortage is told once per episode.
 * - `admin_alerts_funds_idx`: the funds alert list (`GET /admin/economics/funds/alerts`), newest first.
 *
 * Expand, then contract (issue #37): `supplier_funds_alerts` is left in place, unread and
 * unwritten by this release, so the release before keeps running against this schema (its
 * inserts leave `detail` at `{}`, outside the new index). A later release drops the table.
 */
export const migration0036FundsAlertsInAdminAlerts: Migration = {
  name: '0036-funds-alerts-in-admin-alerts',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE admin_alerts ADD COLUMN IF NOT EXISTS detail JSONB NOT NULL DEFAULT '{}'::jsonb;
      INSERT INTO admin_alerts (kind, alert_key, severity, title, message, subject, detail, created_at)
      SELECT CASE f.kind WHEN 'shortage' THEN 'funds_short' ELSE 'runway_short' END,
             CASE f.kind WHEN 'shortage' THEN 'funds-short:' ELSE 'runway:' END || f.id,
             CASE f.kind WHEN 'shortage' THEN 'critical' ELSE 'warning' END,
             '供应商 #' || f.supplier_id || CASE f.kind WHEN 'shortage' THEN ' 上游余额不足' ELSE ' 上游余额不够续费' END,
             f.message,
             jsonb_strip_nulls(jsonb_build_object('supplier_id', f.supplier_id, 'workflow_id', f.workflow_id)),
             jsonb_build_object('supplier_id', f.supplier_id, 'occasion', f.occasion, 'balance', f.balance::text, 'needed', f.needed::text,
                                'workflow_id', f.workflow_id, 'started_at', f.created_at, 'ended_at', f.resolved_at),
             f.created_at
        FROM supplier_funds_alerts f
      ON CONFLICT (alert_key) DO UPDATE SET detail = EXCLUDED.detail;
    `);
    // Built concurrently, each on its own (the table is live while the release before runs).
    await buildIndexConcurrently(
      sequelize,
      'admin_alerts_open_funds_short',
      `admin_alerts ((detail->>'supplier_id')) WHERE kind = 'funds_short' AND detail ? 'supplier_id' AND (detail->>'ended_at') IS NULL`,
      { unique: true },
    );
    await buildIndexConcurrently(sequelize, 'admin_alerts_funds_idx', `admin_alerts (created_at DESC, id DESC) WHERE kind IN ('funds_short', 'runway_short')`);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP INDEX IF EXISTS admin_alerts_funds_idx;
      DROP INDEX IF EXISTS admin_alerts_open_funds_short;
      ALTER TABLE admin_alerts DROP COLUMN IF EXISTS detail;
    `);
  },
};

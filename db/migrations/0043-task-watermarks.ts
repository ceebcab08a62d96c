import { buildIndexConcurrently } from './concurrent-index.js';
import type { Migration } from './types.js';

/**
 * The recurring tasks read what they can act on (issue #35, docs/scheduling.md "What each task
 * reads"):
 *
 * - `task_watermarks`: per task, the time up to which a run has already looked at what changed
 *   (`member_levels.apply_spend`: payments and refunds; `billing.cancel_stale_invoices`: services
 *   that ended), with what else the run's reading depended on (`state`: the level thresholds).
 *   Advanced by a guarded update that never moves it back, so two overlapping runs cannot lose
 *   each other's work; a task without a row makes one full pass.
 * - `invoices_undispatched_service_idx`: a service's paid invoices not yet dispatched, by service
 *   (the "renewal paid, not yet applied" rule, `domain/lifecycle/renewal-state.ts`): the rule read
 *   every paid renewal of each due service (its whole history) with a lookup of its service order.
 * - `invoices_unpaid_type_idx`: the stale-invoice task reads the unpaid invoices of the kinds it
 *   cancels, older than the cut-off, instead of walking every unpaid invoice (the open renewal
 *   invoices of living services, recharges, …) on each run.
 * - `services_cancelled_idx`: the services cancelled since a time (`services_terminated_idx`,
 *   0035, has the terminations), whose unpaid renewal invoices the stale-invoice task cancels.
 *
 * The table is new; the indexes are built concurrently (the tables are live while the release
 * before runs). Nothing is contracted.
 */
export const WATERMARK_INDEXES: ReadonlyArray<{ name: string; on: string }> = [
  { name: 'invoices_undispatched_service_idx', on: `invoices (service_id) WHERE dispatched_at IS NULL AND paid_at IS NOT NULL AND service_id IS NOT NULL` },
  { name: 'invoices_unpaid_type_idx', on: `invoices (type, created_at, id) WHERE status = 'unpaid'` },
  { name: 'services_cancelled_idx', on: `services (cancelled_at) WHERE status = 'cancelled'` },
];

export const migration0043TaskWatermarks: Migration = {
  name: '0043-task-watermarks',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE IF NOT EXISTS task_watermarks (
        task_key VARCHAR(128) PRIMARY KEY,
        until TIMESTAMPTZ NOT NULL,
        state JSONB NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(state) = 'object'),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    for (const index of WATERMARK_INDEXES) await buildIndexConcurrently(sequelize, index.name, index.on);
  },
  async down({ context: sequelize }) {
    for (const index of [...WATERMARK_INDEXES].reverse()) await sequelize.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index.name}`);
    await sequelize.query('DROP TABLE IF EXISTS task_watermarks');
  },
};

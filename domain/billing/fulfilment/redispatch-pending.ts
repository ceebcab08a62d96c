import type { DomainDeps } from '../../deps.js';
import { sqlRows } from '../../../db/sql.js';
import { dispatchFulfilment } from './dispatch-fulfilment.js';

export type RedispatchSummary = { found: number; dispatched: number; failed: number };

/**
 * Repairs a crash between a payment's commit and its fulfilment start: every paid invoice
 * whose dispatch was not recorded, paid at least `graceSeconds` ago (so the normal path is not
 * raced), is dispatched again (idempotent). Safe to run from a heartbeat task at any time;
 * the scheduling work calls it from a built-in task.
 */
export async function redispatchPendingFulfilment(deps: DomainDeps, options: { graceSeconds?: number; limit?: number } = {}): Promise<RedispatchSummary> {
  const rows = await sqlRows<{ id: number }>(
    deps,
    `SELECT id FROM invoices
      WHERE dispatched_at IS NULL AND paid_at IS NOT NULL AND status IN ('paid', 'partially_refunded')
        AND type IN ('purchase', 'renew', 'traffic_package') AND paid_at < now() - make_interval(secs => $1)
      ORDER BY paid_at LIMIT $2`,
    [options.graceSeconds ?? 60, options.limit ?? 200],
  );
  const summary: RedispatchSummary = { found: rows.length, dispatched: 0, failed: 0 };
  for (const { id } of rows) {
    try {
      if ((await dispatchFulfilment(deps, id)).dispatched) summary.dispatched += 1;
    } catch (err) {
      summary.failed += 1;
      deps.logger.warn({ err, invoiceId: id }, 'fulfilment redispatch failed');
    }
  }
  return summary;
}

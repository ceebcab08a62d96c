import type { DomainDeps } from '../../deps.js';
import { sqlOne, sqlRows } from '../../../db/sql.js';
import { dispatchFulfilment } from './dispatch-fulfilment.js';

export type RedispatchSummary = {
  /** Paid invoices whose dispatch was still not recorded: what the normal paths (the outbox relay first) left to repair; should be 0. */
  found: number;
  dispatched: number;
  failed: number;
  /** Outbox rows not done yet (any kind), and those of them due for over 5 minutes (no relay took them: is a worker running?). */
  outboxPending: number;
  outboxOverdue: number;
};

/**
 * The last resort behind the outbox: every paid invoice whose dispatch was not recorded, paid at
 * least `graceSeconds` ago (so the normal paths are not raced), is dispatched again
 * (idempotent), and the outbox's backlog is counted. Anything found means the relay did not do
 * its job in time: logged as a warning, and the counts are the task run's summary. Safe to run
 * at any time; the scheduling work runs it hourly.
 */
export async function redispatchPendingFulfilment(deps: DomainDeps, options: { graceSeconds?: number; limit?: number } = {}): Promise<RedispatchSummary> {
  const rows = await sqlRows<{ id: number }>(
    deps,
    `SELECT id FROM invoices
      WHERE dispatched_at IS NULL AND paid_at IS NOT NULL AND status IN ('paid', 'partially_refunded')
        AND type IN ('purchase', 'renew', 'traffic_package', 'upgrade') AND paid_at < now() - make_interval(secs => $1)
      ORDER BY paid_at LIMIT $2`,
    [options.graceSeconds ?? 60, options.limit ?? 200],
  );
  const backlog = await sqlOne<{ pending: number; overdue: number }>(
    deps,
    `SELECT count(*)::int AS pending, (count(*) FILTER (WHERE next_attempt_at < now() - interval '5 minutes'))::int AS overdue
       FROM outbox WHERE done_at IS NULL`,
    [],
  );
  const summary: RedispatchSummary = { found: rows.length, dispatched: 0, failed: 0, outboxPending: backlog?.pending ?? 0, outboxOverdue: backlog?.overdue ?? 0 };
  for (const { id } of rows) {
    try {
      if ((await dispatchFulfilment(deps, id)).dispatched) summary.dispatched += 1;
    } catch (err) {
      summary.failed += 1;
      deps.logger.warn({ err, invoiceId: id }, 'fulfilment redispatch failed');
    }
  }
  if (summary.found > 0 || summary.outboxOverdue > 0) deps.logger.warn(summary, 'the fulfilment backstop had work: the outbox relay is late or failing');
  return summary;
}

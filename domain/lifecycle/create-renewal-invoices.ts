import { throwIfCancelled } from '../../lib/cancellation.js';
import { AppError, ErrorCode } from '../../lib/errors.js';
import { systemAudit } from '../billing/audit.js';
import { sqlRows, statement } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { createRenewalInvoice } from '../services/renewals/create-renewal-invoice.js';
import type { TaskRunContext } from '../tasks/types.js';
import { RENEWAL_PAID_NOT_APPLIED } from './renewal-state.js';

/** Services read per statement; a run walks every due service, a batch at a time (keyset on the id). */
export const LIFECYCLE_BATCH = 500;

/** The keyset before every due service: (next_due_at, id) after (-infinity, 0). */
export const FIRST_DUE_KEY = { due: '-infinity', id: 0 };

/**
 * Active or suspended periodic services due within the lead days (or past due), in due-date order
 * through `services_due_key_idx` (next_due_at, id; partial on the two statuses, migration 0041):
 * the due services only, never the far-future or ended ones. Keyset on (next_due_at, id): each
 * batch starts after the last service of the previous one, so a run reads the due range once
 * (services skipped because their invoice exists or their renewal is being applied included).
 * By id, each batch read the whole remaining due range again (MATERIALIZED, then sorted by id):
 * at 10× 61,678 services due, 40 batches, about as many rows read per batch as the range.
 * `due_key` is the due date as text (microseconds kept; a JS Date would round them off).
 */
const DUE_FOR_RENEWAL = statement(
  `SELECT s.id, s.billing_period, s.next_due_at::text AS due_key FROM services s
    WHERE s.status IN ('active', 'suspended') AND s.billing_period <> 'onetime'
      AND s.next_due_at <= now() + make_interval(days => $1) AND (s.next_due_at, s.id) > ($2::timestamptz, $3::int)
      AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.service_id = s.id AND i.type = 'renew' AND i.status = 'unpaid')
      AND NOT ${RENEWAL_PAID_NOT_APPLIED}
    ORDER BY s.next_due_at, s.id LIMIT $4`,
);

/**
 * How much one run may do: `batch` services read per statement (a test makes it small to walk
 * several batches); `budgetMs` the time after which it starts no further invoice (the task gives
 * its attempt's timeout less a margin, `RENEWAL_RUN_BUDGET_MS`); `clock` for tests.
 */
export type RenewalRunLimits = { batch?: number; budgetMs?: number; clock?: () => number };

/**
 * Renewal invoices ahead of due dates: every active or suspended, periodic service due within
 * `RENEWAL_INVOICE_LEAD_DAYS` (or past due) without an unpaid renewal invoice or a renewal on its
 * way gets one for its own period at its own price, through the services domain's
 * `createRenewalInvoice` with `source: 'scheduler'`: idempotent per service and due date (the
 * invoice made for a due date is answered again, even after the user cancelled it), so a rerun
 * or a retry never makes a second one. The run stops between batches when cancelled.
 *
 * A run hands out a bounded amount of work (docs/scheduling.md "Renewal invoices: a bounded run"):
 * once `budgetMs` is spent it starts no further invoice and answers `more_due: true`; the next
 * run (hourly) starts again from the earliest due date and finds the services already given
 * their invoice gone from the due condition, so it continues where this one stopped. Each
 * invoice is its own transaction, so stopping between two loses nothing and repeats nothing.
 */
export async function createDueRenewalInvoices(deps: DomainDeps, run: Pick<TaskRunContext, 'taskRunId' | 'taskKey'>, limits: RenewalRunLimits = {}) {
  const batch = limits.batch ?? LIFECYCLE_BATCH;
  const clock = limits.clock ?? (() => performance.now());
  const started = clock();
  const summary = { candidates: 0, created: 0, existing: 0, not_renewable: 0, failed: 0, more_due: false, lead_days: deps.config.lifecycle.renewalLeadDays };
  const audit = systemAudit(`task:${run.taskKey}:${run.taskRunId}`);
  for (let after = FIRST_DUE_KEY; ; ) {
    throwIfCancelled();
    const candidates = await sqlRows<{ id: number; billing_period: string; due_key: string }>(deps, DUE_FOR_RENEWAL, [deps.config.lifecycle.renewalLeadDays, after.due, after.id, batch]);
    for (const service of candidates) {
      // At least one invoice per run, so a run always moves the work on.
      if (limits.budgetMs !== undefined && summary.candidates > 0 && clock() - started >= limits.budgetMs) {
        summary.more_due = true;
        return summary;
      }
      summary.candidates += 1;
      await renewOne(service);
    }
    if (candidates.length < batch) return summary;
    const last = candidates[candidates.length - 1]!;
    after = { due: last.due_key, id: last.id };
  }

  async function renewOne(service: { id: number; billing_period: string }) {
    try {
      const { created } = await createRenewalInvoice(deps, { serviceId: service.id, billingPeriod: service.billing_period, source: 'scheduler' }, audit);
      if (created) summary.created += 1;
      else summary.existing += 1;
    } catch (error) {
      // Not renewable any more (status changed meanwhile, the product no longer sells its period): the reminder still tells the user.
      if (error instanceof AppError && (error.code === ErrorCode.SERVICE_NOT_RENEWABLE || error.code === ErrorCode.VALIDATION || error.code === ErrorCode.NOT_FOUND)) {
        summary.not_renewable += 1;
        return;
      }
      deps.logger.error({ err: error, serviceId: service.id }, 'renewal invoice not created');
      summary.failed += 1;
    }
  }
}

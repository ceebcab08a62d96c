import { AppError, ErrorCode } from '../../lib/errors.js';
import { systemAudit } from '../billing/audit.js';
import { sqlRows, statement } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { createRenewalInvoice } from '../services/renewals/create-renewal-invoice.js';
import type { TaskRunContext } from '../tasks/types.js';
import { RENEWAL_PAID_NOT_APPLIED } from './renewal-state.js';

/** Services read per statement; a run walks every due service, a batch at a time (keyset on the id). */
export const LIFECYCLE_BATCH = 500;

/**
 * Active or suspended periodic services due within the lead days (or past due), through
 * `services_due_idx` (next_due_at, partial on the two statuses): the due services only, never the
 * far-future or ended ones. Keyset: the id after the last one of the previous batch. The due
 * range is read first (MATERIALIZED): with `ORDER BY id LIMIT` alone the planner may walk the
 * primary key in id order hoping to meet due services early, reading every service when the
 * services in the range all have their invoice already.
 */
const DUE_FOR_RENEWAL = statement(
  `WITH due AS MATERIALIZED (
     SELECT s.id, s.billing_period FROM services s
      WHERE s.status IN ('active', 'suspended') AND s.billing_period <> 'onetime'
        AND s.next_due_at IS NOT NULL AND s.next_due_at <= now() + make_interval(days => $1) AND s.id > $2
   )
   SELECT s.id, s.billing_period FROM due s
    WHERE NOT EXISTS (SELECT 1 FROM invoices i WHERE i.service_id = s.id AND i.type = 'renew' AND i.status = 'unpaid')
      AND NOT ${RENEWAL_PAID_NOT_APPLIED}
    ORDER BY s.id LIMIT $3`,
);

/**
 * Renewal invoices ahead of due dates: every active or suspended, periodic service due within
 * `RENEWAL_INVOICE_LEAD_DAYS` (or past due) without an unpaid renewal invoice or a renewal on its
 * way gets one for its own period at its own price, through the services domain's
 * `createRenewalInvoice` with `source: 'scheduler'`: idempotent per service and due date (the
 * invoice made for a due date is answered again, even after the user cancelled it), so a rerun
 * or a retry never makes a second one.
 */
export async function createDueRenewalInvoices(deps: DomainDeps, run: Pick<TaskRunContext, 'taskRunId' | 'taskKey'>) {
  const summary = { candidates: 0, created: 0, existing: 0, not_renewable: 0, failed: 0, lead_days: deps.config.lifecycle.renewalLeadDays };
  const audit = systemAudit(`task:${run.taskKey}:${run.taskRunId}`);
  for (let last = 0; ; ) {
    const candidates = await sqlRows<{ id: number; billing_period: string }>(deps, DUE_FOR_RENEWAL, [deps.config.lifecycle.renewalLeadDays, last, LIFECYCLE_BATCH]);
    summary.candidates += candidates.length;
    for (const service of candidates) await renewOne(service);
    if (candidates.length < LIFECYCLE_BATCH) return summary;
    last = candidates[candidates.length - 1]!.id;
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

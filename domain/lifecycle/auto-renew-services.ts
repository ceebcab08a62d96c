import { AppError, ErrorCode } from '../../lib/errors.js';
import { systemAudit } from '../billing/audit.js';
import { payInvoiceByBalance } from '../billing/payments/pay-invoice-by-balance.js';
import { sqlRows, statement } from '../../db/sql.js';
import { throwIfCancelled } from '../../lib/cancellation.js';
import { FIRST_DUE_KEY, LIFECYCLE_BATCH, type RenewalRunLimits } from './create-renewal-invoices.js';
import type { DomainDeps } from '../deps.js';
import type { TaskRunContext } from '../tasks/types.js';
import { advanceWatermark, databaseNow, readWatermark } from '../tasks/watermarks.js';

type Candidate = { service_id: number; due_key: string; invoice_id: number; user_id: number };

/**
 * The auto-renewing services due within the lead days (or past due) with their oldest unpaid
 * renewal invoice (`invoices_one_unpaid_renewal`) and no pending payment of it, in due-date order
 * through `services_due_key_idx` (migration 0041), keyset on (next_due_at, id) like the renewal
 * invoices: bounded batches, the due range read once per run. It used to read every candidate in
 * one statement before paying the first.
 */
const DUE_FOR_AUTO_RENEW = statement(
  `SELECT s.id AS service_id, s.next_due_at::text AS due_key, i.id AS invoice_id, i.user_id
     FROM services s
     JOIN LATERAL (
       SELECT id, user_id FROM invoices WHERE service_id = s.id AND type = 'renew' AND status = 'unpaid' ORDER BY id LIMIT 1
     ) i ON true
    WHERE s.auto_renew AND s.status IN ('active', 'suspended') AND s.next_due_at <= now() + make_interval(days => $1)
      AND (s.next_due_at, s.id) > ($2::timestamptz, $3::int)
      AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.invoice_id = i.id AND p.status = 'pending')
    ORDER BY s.next_due_at, s.id LIMIT $4`,
);

const OUTCOME_BY_CODE: Partial<Record<number, string>> = {
  [ErrorCode.INSUFFICIENT_BALANCE]: 'insufficient_balance',
  [ErrorCode.INVOICE_ALREADY_PAID]: 'already_paid',
  [ErrorCode.PAYMENT_IN_PROGRESS]: 'payment_in_progress',
  [ErrorCode.INVOICE_NOT_PAYABLE]: 'not_payable',
};

/** Where a run that stopped on its budget left off: the next run goes on from there (`task_watermarks.state`). */
type Cursor = { due: string; id: number };

function cursorOf(state: Record<string, unknown> | undefined): Cursor | null {
  const due = state?.['after_due'];
  const id = state?.['after_id'];
  return typeof due === 'string' && typeof id === 'number' ? { due, id } : null;
}

/**
 * Auto-renew from the balance: for services with `auto_renew` whose due date is within
 * `RENEWAL_INVOICE_LEAD_DAYS` (or past), the oldest unpaid renewal invoice is paid with the
 * money domain's balance payment (invoice and account row locks, one ledger entry keyed by the
 * invoice number: exactly once, whoever pays first). A balance that does not cover it leaves
 * the invoice unpaid (the renewal reminder tells the user). Only our own invoices: the
 * upstream's auto-renew is never switched or read (spec). Batches of `batch` services (a test makes
 * it small); the run stops between batches when cancelled.
 *
 * A bounded run (docs/scheduling.md "Auto-renew: a bounded run"): once `budgetMs` is spent it
 * starts no further payment, answers `more_due: true` and keeps where it stopped in the task's
 * watermark, so the next run goes on from there instead of trying the same unpaid invoices
 * (a balance that does not cover them stays a candidate) again first; a run that reaches the
 * end clears the mark, and the next starts from the earliest due date. Each payment is its own
 * transaction, exactly once by its ledger key, so where a run stops loses and repeats nothing.
 */
export async function autoRenewServices(deps: DomainDeps, run: Pick<TaskRunContext, 'taskRunId' | 'taskKey'>, limits: RenewalRunLimits = {}) {
  const batch = limits.batch ?? LIFECYCLE_BATCH;
  const clock = limits.clock ?? (() => performance.now());
  const started = clock();
  const startedAt = await databaseNow(deps);
  const summary: Record<string, number | boolean> = {
    candidates: 0, paid: 0, insufficient_balance: 0, already_paid: 0, payment_in_progress: 0, not_payable: 0, failed: 0, more_due: false, resumed: false,
  };
  const count = (key: string) => (summary[key] = Number(summary[key] ?? 0) + 1);
  const audit = systemAudit(`task:${run.taskKey}:${run.taskRunId}`);
  const resume = cursorOf((await readWatermark(deps, run.taskKey))?.state);
  summary['resumed'] = resume !== null;
  for (let after = resume ?? FIRST_DUE_KEY; ; ) {
    throwIfCancelled();
    const candidates = await sqlRows<Candidate>(deps, DUE_FOR_AUTO_RENEW, [deps.config.lifecycle.renewalLeadDays, after.due, after.id, batch]);
    for (const candidate of candidates) {
      // At least one payment per run, so a run always moves the work on.
      if (limits.budgetMs !== undefined && Number(summary['candidates']) > 0 && clock() - started >= limits.budgetMs) {
        summary['more_due'] = true;
        await advanceWatermark(deps, run.taskKey, startedAt, { after_due: after.due, after_id: after.id });
        return summary;
      }
      count('candidates');
      try {
        await payInvoiceByBalance(deps, { userId: candidate.user_id, invoiceId: candidate.invoice_id }, audit);
        count('paid');
      } catch (error) {
        const outcome = error instanceof AppError ? OUTCOME_BY_CODE[error.code] : undefined;
        if (!outcome) deps.logger.error({ err: error, invoiceId: candidate.invoice_id }, 'auto-renew payment failed');
        count(outcome ?? 'failed');
      }
      after = { due: candidate.due_key, id: candidate.service_id };
    }
    if (candidates.length < batch) {
      if (resume) await advanceWatermark(deps, run.taskKey, startedAt, {});
      return summary;
    }
  }
}

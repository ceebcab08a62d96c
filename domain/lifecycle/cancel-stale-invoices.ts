import { throwIfCancelled } from '../../lib/cancellation.js';
import { AppError } from '../../lib/errors.js';
import { cancelInvoice } from '../billing/invoices/cancel-invoice.js';
import { invoiceTypesWhere } from '../billing/invoice-kinds.js';
import { sqlRows, statement, type Statement } from '../../db/sql.js';
import { advanceWatermark, databaseNow, readWatermark } from '../tasks/watermarks.js';
import type { DomainDeps } from '../deps.js';
import type { InvoiceType } from '../../db/models/billing.js';

/** The kinds the task cancels (every kind with a `staleWhen`), each counted as `<type>_cancelled` in its summary. */
const STALE_TYPES = invoiceTypesWhere('staleWhen');

const DAY_MS = 86_400_000;

/** Invoices read per statement; a run walks all stale ones, a batch at a time. */
const STALE_BATCH = 500;

/** The task's key, which also names its watermark (`task_watermarks`). */
export const STALE_INVOICES_TASK_KEY = 'billing.cancel_stale_invoices';

const NO_OPEN_PAYMENT = `NOT EXISTS (SELECT 1 FROM payments p WHERE p.invoice_id = i.id AND p.status = 'pending')`;

/**
 * Each rule reads only the invoices it can act on (issue #35), a batch at a time after a keyset
 * (an invoice kept because of an open QR payment is not read again in the run). It used to walk
 * every unpaid invoice (`invoices_status_idx`) on each run, the open renewal invoices of living
 * services, recharges and verifications included, and decide afterwards.
 *
 * The invoice-side rules read one kind at a time (`$1`) through `invoices_unpaid_type_idx`
 * (type, created_at, id; partial on unpaid; migration 0043) in that order, keyset on
 * (created_at, id) after (`$2`, `$3`), `$4` at a time; `created_key` is the time as text
 * (microseconds kept):
 * - `days_old`: created before the cut-off (`$5` days): the range ends there.
 * - `quote_day_over`: all the kind's unpaid invoices (an unpaid upgrade is one per service), kept
 *   while their quote's Shanghai day lasts and the service runs.
 * - `service_ended`, first run (no watermark yet): the kind's unpaid invoices whose service is
 *   terminated or cancelled (the service by primary key), once.
 *
 * `service_ended` afterwards (`ENDED_SINCE`): the unpaid invoices of the kinds (`$1`) of services
 * ended (terminated or cancelled) since `$2`, read from the services side
 * (`services_terminated_idx`, `services_cancelled_idx`) and by each one's invoices, keyset on the
 * id after `$3`, `$4` at a time.
 */
const BY_KIND = (condition: string) =>
  statement(
    `SELECT i.id, i.user_id, i.type, i.created_at::text AS created_key FROM invoices i
      WHERE i.status = 'unpaid' AND i.type = $1 AND (i.created_at, i.id) > ($2::timestamptz, $3::int) AND ${condition} AND ${NO_OPEN_PAYMENT}
      ORDER BY i.created_at, i.id LIMIT $4`,
  );

const DAYS_OLD = BY_KIND(`i.created_at < now() - make_interval(days => $5)`);

const QUOTE_DAY_OVER = BY_KIND(
  `((i.created_at AT TIME ZONE 'Asia/Shanghai')::date < (now() AT TIME ZONE 'Asia/Shanghai')::date
    OR (SELECT s.status FROM services s WHERE s.id = i.service_id) <> 'active')`,
);

const ENDED_ANY_TIME = BY_KIND(`(SELECT s.status FROM services s WHERE s.id = i.service_id) IN ('terminated', 'cancelled')`);

const ENDED_SINCE = statement(
  `SELECT i.id, i.user_id, i.type, i.created_at::text AS created_key FROM (
     SELECT s.id FROM services s WHERE s.status = 'terminated' AND s.terminated_at >= $2
     UNION SELECT s.id FROM services s WHERE s.status = 'cancelled' AND s.cancelled_at >= $2
   ) e JOIN invoices i ON i.service_id = e.id
    WHERE i.service_id IS NOT NULL AND i.status = 'unpaid' AND i.type = ANY($1::text[]) AND i.id > $3 AND ${NO_OPEN_PAYMENT}
    ORDER BY i.id LIMIT $4`,
);

type StaleRow = { id: number; user_id: number; type: InvoiceType; created_key: string };

/** One walk: its statement and the binds of a batch after the last row read (null: the first batch). */
type Walk = { sql: Statement; bind: (last: StaleRow | null) => unknown[] };

/** A walk of one kind in (created_at, id) order, with the rule's own binds after the keyset. */
const byKind = (sql: Statement, type: string, extra: unknown[] = []): Walk => ({
  sql,
  bind: (last) => [type, last?.created_key ?? '-infinity', last?.id ?? 0, STALE_BATCH, ...extra],
});

/**
 * Withdraws invoices nobody will pay, by their kind's `staleWhen` (`invoice-kinds.ts`), with the
 * money domain's own cancel (invoice row lock; an open QR payment keeps the invoice): unpaid
 * purchase and traffic-package invoices older than
 * `STALE_INVOICE_CANCEL_DAYS` (nothing was reserved for them: stock is taken only at
 * provisioning), unpaid renewal invoices of terminated or cancelled services, and unpaid
 * upgrade invoices once their quote's (Shanghai) day has passed or their service stopped running:
 * cancelling one releases the service's pending change (nothing else was reserved for it).
 *
 * Renewals of ended services: a service cannot get a renewal invoice once ended (the renewal
 * refuses it under the service's lock), so the services ended since this task's watermark less
 * `STALE_INVOICE_CANCEL_DAYS` are enough: an invoice kept for an open QR payment is tried again
 * by the following runs of that window. The watermark moves to the start of a run that finished.
 */
export type StaleInvoiceSummary = { candidates: number; kept: number; stale_days: number; ended_since: string | null } & { [K in `${InvoiceType}_cancelled`]?: number };

export async function cancelStaleInvoices(deps: DomainDeps): Promise<StaleInvoiceSummary> {
  const days = deps.config.lifecycle.staleInvoiceDays;
  const startedAt = await databaseNow(deps);
  const mark = await readWatermark(deps, STALE_INVOICES_TASK_KEY);
  const endedSince = mark ? new Date(mark.until.getTime() - days * DAY_MS) : null;
  const summary: StaleInvoiceSummary = {
    candidates: 0,
    ...Object.fromEntries(STALE_TYPES.map((type) => [`${type}_cancelled`, 0])),
    kept: 0,
    stale_days: days,
    ended_since: endedSince ? endedSince.toISOString() : null,
  };
  const walks: Walk[] = [
    ...invoiceTypesWhere('staleWhen', 'days_old').map((type) => byKind(DAYS_OLD, type, [days])),
    ...invoiceTypesWhere('staleWhen', 'quote_day_over').map((type) => byKind(QUOTE_DAY_OVER, type)),
    ...(endedSince
      ? [{ sql: ENDED_SINCE, bind: (last: StaleRow | null) => [invoiceTypesWhere('staleWhen', 'service_ended'), endedSince, last?.id ?? 0, STALE_BATCH] }]
      : invoiceTypesWhere('staleWhen', 'service_ended').map((type) => byKind(ENDED_ANY_TIME, type))),
  ];
  for (const walk of walks) {
    for (let last: StaleRow | null = null; ; ) {
      throwIfCancelled();
      const invoices: StaleRow[] = await sqlRows<StaleRow>(deps, walk.sql, walk.bind(last));
      summary.candidates += invoices.length;
      for (const invoice of invoices) {
        try {
          await cancelInvoice(deps, { userId: invoice.user_id, invoiceId: invoice.id });
          summary[`${invoice.type}_cancelled`] = (summary[`${invoice.type}_cancelled`] ?? 0) + 1;
        } catch (error) {
          // Paid or given a QR payment meanwhile: the user's action wins.
          if (!(error instanceof AppError)) throw error;
          summary.kept += 1;
        }
      }
      if (invoices.length < STALE_BATCH) break;
      last = invoices[invoices.length - 1]!;
    }
  }
  await advanceWatermark(deps, STALE_INVOICES_TASK_KEY, startedAt);
  return summary;
}

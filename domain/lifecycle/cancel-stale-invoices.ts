import { throwIfCancelled } from '../../lib/cancellation.js';
import { AppError } from '../../lib/errors.js';
import { cancelInvoice } from '../billing/invoices/cancel-invoice.js';
import { invoiceTypesWhere } from '../billing/invoice-kinds.js';
import { sqlRows, statement } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import type { InvoiceType } from '../../db/models/billing.js';

/** The kinds the task cancels (every kind with a `staleWhen`), each counted as `<type>_cancelled` in its summary. */
const STALE_TYPES = invoiceTypesWhere('staleWhen');

/** Invoices read per statement; a run walks all stale ones, a batch at a time. */
const STALE_BATCH = 500;

/**
 * The stale unpaid invoices after id `$5`, in id order, `$6` at a time (keyset). Read through
 * `invoices_status_idx` (status, id): the unpaid invoices only, a set kept small by this very
 * task (the paid and cancelled history is never read). The invoice's service status is a scalar
 * subquery by its primary key: an `EXISTS` inside the `OR` was planned as a hashed subplan over
 * every ended service, and a join as a hash join over a sequential scan of all services.
 */
const STALE_INVOICES = statement(
  `SELECT i.id, i.user_id, i.type FROM (
     SELECT i.id, i.user_id, i.type, i.created_at, (SELECT s.status FROM services s WHERE s.id = i.service_id) AS service_status
       FROM invoices i WHERE i.status = 'unpaid' AND i.id > $5
   ) i
    WHERE ((i.type = ANY($2::text[]) AND i.created_at < now() - make_interval(days => $1))
        OR (i.type = ANY($3::text[]) AND ((i.created_at AT TIME ZONE 'Asia/Shanghai')::date < (now() AT TIME ZONE 'Asia/Shanghai')::date OR i.service_status <> 'active'))
        OR (i.type = ANY($4::text[]) AND i.service_status IN ('terminated', 'cancelled')))
      AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.invoice_id = i.id AND p.status = 'pending')
    ORDER BY i.id LIMIT $6`,
);

/**
 * Withdraws invoices nobody will pay, by their kind's `staleWhen` (`invoice-kinds.ts`), with the
 * money domain's own cancel (invoice row lock; an open QR payment keeps the invoice): unpaid
 * purchase and traffic-package invoices older than
 * `STALE_INVOICE_CANCEL_DAYS` (nothing was reserved for them: stock is taken only at
 * provisioning), unpaid renewal invoices of terminated or cancelled services, and unpaid
 * upgrade invoices once their quote's (Shanghai) day has passed or their service stopped running:
 * cancelling one releases the service's pending change (nothing else was reserved for it).
 */
export type StaleInvoiceSummary = { candidates: number; kept: number; stale_days: number } & { [K in `${InvoiceType}_cancelled`]?: number };

export async function cancelStaleInvoices(deps: DomainDeps): Promise<StaleInvoiceSummary> {
  const summary: StaleInvoiceSummary = { candidates: 0, ...Object.fromEntries(STALE_TYPES.map((type) => [`${type}_cancelled`, 0])), kept: 0, stale_days: deps.config.lifecycle.staleInvoiceDays };
  const bind = [deps.config.lifecycle.staleInvoiceDays, invoiceTypesWhere('staleWhen', 'days_old'), invoiceTypesWhere('staleWhen', 'quote_day_over'), invoiceTypesWhere('staleWhen', 'service_ended')];
  for (let last = 0; ; ) {
    throwIfCancelled();
    const invoices = await sqlRows<{ id: number; user_id: number; type: InvoiceType }>(deps, STALE_INVOICES, [...bind, last, STALE_BATCH]);
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
    if (invoices.length < STALE_BATCH) return summary;
    last = invoices[invoices.length - 1]!.id;
  }
}

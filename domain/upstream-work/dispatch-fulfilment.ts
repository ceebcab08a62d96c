import type { ServiceOrderKind } from '../../db/models/service-order.js';
import type { DomainDeps } from '../deps.js';
import { sqlOne, sqlRows } from '../../db/sql.js';
import { intentKeys } from '../outbox/intents.js';
import { createServiceOrder } from './service-order/create-order.js';
import { startUpstreamWork } from './start.js';
import { activatePaidAttempt } from '../verification/attempts.js';
import { INVOICE_COLUMNS, type InvoiceRecord } from '../../db/models/billing.js';
import { DISPATCHED_FULFILMENTS, INVOICE_KINDS, invoiceTypesWhere } from '../billing/invoice-kinds.js';

export type DispatchOutcome = { invoiceId: number; dispatched: boolean; reason: 'dispatched' | 'already_dispatched' | 'not_paid' | 'nothing_to_do' };

/** Invoice types whose settlement promises a fulfilment (a recharge is fulfilled in the settlement itself). */
export const FULFILLED_TYPES = invoiceTypesWhere('fulfilment', ...DISPATCHED_FULFILMENTS);

/**
 * Fulfilment of a paid invoice after its settlement committed, by its kind's `fulfilment`
 * (`billing/invoice-kinds.ts`); idempotent. Upstream work is started through the kernel only
 * (`startUpstreamWork`, ./start.ts): a purchase starts `provision:<service_id>` for each of its
 * services; a renewal, traffic package or upgrade first gets its service order row
 * (`createServiceOrder`), then `renew:`/`traffic:`/`upgrade:<invoice_no>`. A real-name
 * verification, which is not upstream work, starts its attempt (`activatePaidAttempt`: awaiting_payment → pending once, and its workflow). `dispatched_at` and the
 * settlement's `fulfil:<invoice id>` outbox row are marked done only after everything started,
 * so a crash in between leaves the row to be claimed again. Its one caller is the outbox relay
 * performing that row (and, in payment workflows recorded before patch `fulfilment-by-outbox`,
 * their activity): a second run finds it dispatched or starts nothing new.
 */
export async function dispatchFulfilment(deps: DomainDeps, invoiceId: number): Promise<DispatchOutcome> {
  // The invoice with its services in one round trip: this runs after every payment.
  const invoice = await sqlOne<InvoiceRecord & { service_ids: number[] | null }>(
    deps,
    `SELECT ${INVOICE_COLUMNS}, (SELECT array_agg(s.id ORDER BY s.seq) FROM services s WHERE s.invoice_id = invoices.id) AS service_ids
       FROM invoices WHERE id = $1`,
    [invoiceId],
  );
  if (!invoice || invoice.paid_at === null) return { invoiceId, dispatched: false, reason: 'not_paid' };
  if (invoice.dispatched_at !== null) return { invoiceId, dispatched: false, reason: 'already_dispatched' };
  if (invoice.status !== 'paid' && invoice.status !== 'partially_refunded') return { invoiceId, dispatched: false, reason: 'nothing_to_do' };
  const subject = { userId: invoice.user_id, invoiceId: invoice.id, invoiceNo: invoice.invoice_no };
  switch (INVOICE_KINDS[invoice.type].fulfilment) {
    case 'provisioning': {
      for (const serviceId of invoice.service_ids ?? []) await startUpstreamWork(deps, 'provision', { ...subject, serviceId });
      break;
    }
    case 'service_order': {
      const { serviceId } = await createServiceOrder(deps, invoice);
      await startUpstreamWork(deps, invoice.type as ServiceOrderKind, { ...subject, serviceId });
      break;
    }
    case 'verification':
      await activatePaidAttempt(deps, invoice.id);
      break;
    default:
      break;
  }
  // Both records of the dispatch in one statement: the invoice's and the outbox row's.
  await sqlRows(
    deps,
    `WITH dispatched AS (UPDATE invoices SET dispatched_at = now(), updated_at = now() WHERE id = $1 AND dispatched_at IS NULL RETURNING id)
     UPDATE outbox SET done_at = now(), last_error = NULL, updated_at = now() WHERE key = $2 AND done_at IS NULL RETURNING id`,
    [invoice.id, intentKeys.fulfilment(invoice.id)],
  );
  return { invoiceId, dispatched: true, reason: 'dispatched' };
}

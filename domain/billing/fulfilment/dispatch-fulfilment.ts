import type { DomainDeps } from '../../deps.js';
import { sqlOne, sqlRows } from '../../../db/sql.js';
import { afterCommit } from './after-commit.js';
import { FulfilmentNotImplementedError, fulfilmentDispatcher } from './dispatchers.js';
import { startProvisioning } from './start-provisioning.js';
import { INVOICE_COLUMNS, type InvoiceRecord } from '../../../db/models/money.js';

export type DispatchOutcome = { invoiceId: number; dispatched: boolean; reason: 'dispatched' | 'already_dispatched' | 'not_paid' | 'nothing_to_do' };

/**
 * Fulfilment of a paid invoice after its settlement committed; idempotent. A purchase starts
 * `provision:<service_id>` for each of its services; a renewal or traffic package goes to its
 * registered dispatcher (none yet: FulfilmentNotImplementedError); a recharge was fulfilled in
 * the settlement itself. `dispatched_at` is set only after everything started, so a crash in
 * between leaves the invoice for `redispatchPendingFulfilment`.
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
  switch (invoice.type) {
    case 'purchase': {
      for (const id of invoice.service_ids ?? []) await startProvisioning(deps, { id, user_id: invoice.user_id });
      break;
    }
    case 'renew':
    case 'traffic_package': {
      const dispatcher = fulfilmentDispatcher(invoice.type);
      if (!dispatcher) throw new FulfilmentNotImplementedError(`no fulfilment dispatcher registered for ${invoice.type} invoices (${invoice.invoice_no})`);
      await dispatcher(deps, invoice);
      break;
    }
    default:
      break;
  }
  await sqlRows(deps, 'UPDATE invoices SET dispatched_at = now(), updated_at = now() WHERE id = $1 AND dispatched_at IS NULL RETURNING id', [invoice.id]);
  return { invoiceId, dispatched: true, reason: 'dispatched' };
}

/** After a payment committed: dispatch without holding up (or ever failing) the payment's answer. */
export function dispatchAfterCommit(deps: DomainDeps, invoiceId: number): void {
  afterCommit(deps, `dispatch invoice ${invoiceId}`, () => dispatchFulfilment(deps, invoiceId));
}

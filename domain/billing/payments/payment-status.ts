import type { PaymentRow } from '../../../db/models/billing.js';
import type { DomainDeps } from '../../deps.js';
import { findDocument } from '../lists/list-documents.js';
import type { InvoiceRow } from '../../../db/models/billing.js';

/** The QR payment state of the user's invoice from our records only (never the gateway): the latest payment, if any. */
export async function getQrPaymentStatus(deps: DomainDeps, userId: number, invoiceId: number): Promise<{ invoice: InvoiceRow; payment: PaymentRow | null }> {
  const { Invoice, Payment } = deps.db.models;
  const invoice = await findDocument(Invoice, invoiceId, '账单', userId);
  const payment = await Payment.findOne({ where: { invoice_id: invoice.id }, order: [['id', 'DESC']] });
  return { invoice, payment };
}

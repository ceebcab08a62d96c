import type { DomainDeps } from '../../deps.js';
import type { PaymentCheck } from '../../../workflows/invoice-payment/contract.js';
import type { Audit } from '../audit.js';
import { sqlOne } from '../../../db/sql.js';
import { queryAndSettle } from './close-qr-payment.js';
import { PAYMENT_COLUMNS, type PaymentRecord } from '../../../db/models/billing.js';

/**
 * One look at a QR payment for its workflow: our records first (the notify route may have
 * settled it), else the gateway's query (settling when it says paid).
 */
export async function checkQrPayment(deps: DomainDeps, paymentNo: string, audit: Audit): Promise<PaymentCheck> {
  const payment = await sqlOne<PaymentRecord>(deps, `SELECT ${PAYMENT_COLUMNS} FROM payments WHERE payment_no = $1`, [paymentNo]);
  if (!payment) throw new Error(`payment ${paymentNo} not found`);
  if (payment.status === 'closed') return { state: 'closed', invoiceId: payment.invoice_id };
  if (payment.status !== 'pending') return { state: 'paid', invoiceId: payment.invoice_id };
  return { state: await queryAndSettle(deps, payment, audit), invoiceId: payment.invoice_id };
}

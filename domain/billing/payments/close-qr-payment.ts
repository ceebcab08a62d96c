import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import type { PaymentCheck, PaymentState } from '../../../workflows/invoice-payment/contract.js';
import { inTransaction, sqlOne } from '../../../db/sql.js';
import { invokePaymentPlugin } from './payment-plugin.js';
import { reverseBalancePart } from './reverse-balance-part.js';
import { settleQrPayment } from './settle-qr-payment.js';
import { PAYMENT_COLUMNS, type PaymentRecord } from '../../../db/models/billing.js';

/** A gateway call that may succeed later: the workflow's activity retries it. */
export class GatewayRetryableError extends Error {
  override name = 'GatewayRetryableError';
}

/**
 * Ends an unpaid QR payment: `payment.close` at the gateway first (a trade never scanned is
 * closed too), then, under the payment lock, the payment `closed` and its balance part
 * reversed. If the gateway refuses because the trade was paid meanwhile, the payment is
 * settled instead (query, then the same settle function). Idempotent.
 */
export async function closeQrPayment(deps: DomainDeps, paymentNo: string, audit: Audit): Promise<PaymentCheck> {
  const payment = await sqlOne<PaymentRecord>(deps, `SELECT ${PAYMENT_COLUMNS} FROM payments WHERE payment_no = $1`, [paymentNo]);
  if (!payment) throw new Error(`payment ${paymentNo} not found`);
  return { state: await closePending(deps, payment, audit), invoiceId: payment.invoice_id };
}

async function closePending(deps: DomainDeps, payment: PaymentRecord, audit: Audit): Promise<PaymentState> {
  if (payment.status !== 'pending') return payment.status === 'closed' ? 'closed' : 'paid';

  // A payment whose plugin was force-uninstalled cannot reach its gateway any more: it is closed here only.
  const closed =
    payment.plugin_id === null
      ? { success: true, data: {} as Record<string, unknown>, message: '' }
      : await invokePaymentPlugin(deps, payment, 'payment.close', { out_trade_no: payment.payment_no }, audit);
  if (!closed.success) {
    if (closed.data.error_code === 'trade_status_error') {
      const state = await queryAndSettle(deps, payment, audit);
      if (state !== 'pending') return state;
    }
    throw new GatewayRetryableError(`payment.close failed for ${payment.payment_no}: ${closed.message}`);
  }
  return inTransaction(deps, async (transaction) => {
    const locked = await sqlOne<PaymentRecord>(deps, `SELECT ${PAYMENT_COLUMNS} FROM payments WHERE id = $1 FOR UPDATE`, [payment.id], transaction);
    if (!locked || locked.status !== 'pending') return locked?.status === 'closed' ? 'closed' : 'paid';
    await sqlOne(deps, `UPDATE payments SET status = 'closed', closed_at = now(), updated_at = now() WHERE id = $1 RETURNING id`, [locked.id], transaction);
    await reverseBalancePart(deps, locked, audit, transaction);
    return 'closed';
  });
}

/**
 * Asks the gateway about the payment and settles it when the signed answer says paid. A
 * failed query is "still pending": the next poll asks again, and the window's end closes it.
 */
export async function queryAndSettle(deps: DomainDeps, payment: PaymentRecord, audit: Audit): Promise<PaymentState> {
  if (payment.plugin_id === null) return 'pending';
  const answer = await invokePaymentPlugin(deps, payment, 'payment.query', { out_trade_no: payment.payment_no }, audit);
  if (!answer.success) return 'pending';
  const data = answer.data;
  if (data.paid === true && typeof data.trade_no === 'string' && typeof data.total_amount === 'string') {
    await settleQrPayment(deps, { paymentNo: payment.payment_no, tradeNo: data.trade_no, amount: data.total_amount, source: 'poll' }, audit);
    return 'paid';
  }
  return 'pending';
}

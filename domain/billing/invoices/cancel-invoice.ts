import { AppError, ErrorCode } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';
import { INVOICE_STATUS_LABELS } from '../constants.js';
import { inTransaction, sqlOne } from '../../../db/sql.js';
import { lockInvoice } from './lock-invoice.js';
import { releaseCouponUse } from '../../marketing/coupon-uses.js';
import { INVOICE_COLUMNS, type InvoiceRecord } from '../../../db/models/billing.js';

/**
 * The user withdraws an unpaid invoice: `cancelled`, its order `cancelled`. Refused while a
 * QR payment is pending (40913) and for any invoice that is not unpaid (40912; paid: 40910).
 */
export async function cancelInvoice(deps: DomainDeps, input: { userId: number; invoiceId: number }): Promise<InvoiceRecord> {
  return inTransaction(deps, async (transaction) => {
    const invoice = await lockInvoice(deps, input.invoiceId, input.userId, transaction);
    if (invoice.status === 'paid' || invoice.status === 'partially_refunded' || invoice.status === 'refunded') {
      throw new AppError(ErrorCode.INVOICE_ALREADY_PAID, '账单已支付，不能取消');
    }
    if (invoice.status !== 'unpaid') throw new AppError(ErrorCode.INVOICE_NOT_PAYABLE, `账单${INVOICE_STATUS_LABELS[invoice.status]}，不能取消`);
    const pending = await sqlOne<{ payment_no: string }>(deps, `SELECT payment_no FROM payments WHERE invoice_id = $1 AND status = 'pending'`, [invoice.id], transaction);
    if (pending) throw new AppError(ErrorCode.PAYMENT_IN_PROGRESS, undefined, { payment_no: pending.payment_no });
    await sqlOne(deps, `UPDATE orders SET status = 'cancelled', updated_at = now() WHERE invoice_id = $1 AND status = 'pending' RETURNING id`, [invoice.id], transaction);
    const cancelled = await sqlOne<InvoiceRecord>(
      deps,
      `UPDATE invoices SET status = 'cancelled', cancelled_at = now(), updated_at = now() WHERE id = $1 RETURNING ${INVOICE_COLUMNS}`,
      [invoice.id],
      transaction,
    );
    if (!cancelled) throw new Error('invoice not cancelled');
    // A coupon use reserved with the invoice goes back (stale invoices are cancelled here too).
    await releaseCouponUse(deps, invoice.id, transaction);
    return cancelled;
  });
}

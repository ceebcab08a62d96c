import { AppError, ErrorCode } from '../../../lib/errors.js';
import { formatDateTime } from '../../../lib/time.js';
import { INVOICE_STATUS_LABELS } from '../constants.js';
import { INVOICE_KINDS } from '../invoice-kinds.js';
import type { InvoiceRecord } from '../../../db/models/billing.js';

/**
 * Paying needs an unpaid invoice of a payable type: a paid one answers 40910, anything else
 * 40912. An upgrade invoice is a quote for the (Shanghai) day it was made: its proration counts
 * the days left from that day, so it is payable only that day (40962; the daily stale-invoice
 * job withdraws it afterwards).
 */
export function assertPayable(invoice: InvoiceRecord, now: Date = new Date()): void {
  if (invoice.status === 'paid' || invoice.status === 'partially_refunded' || invoice.status === 'refunded') {
    throw new AppError(ErrorCode.INVOICE_ALREADY_PAID, '账单已支付，请勿重复支付', { invoice_id: invoice.id, status: invoice.status });
  }
  if (invoice.status !== 'unpaid') {
    throw new AppError(ErrorCode.INVOICE_NOT_PAYABLE, `账单${INVOICE_STATUS_LABELS[invoice.status]}，不可支付`, { invoice_id: invoice.id, status: invoice.status });
  }
  if (!INVOICE_KINDS[invoice.type].payable) {
    throw new AppError(ErrorCode.INVOICE_NOT_PAYABLE, '该类型的账单无需支付', { invoice_id: invoice.id, status: invoice.status });
  }
  if (invoice.type === 'upgrade' && invoice.payload['quoted_on'] !== (formatDateTime(now) ?? '').slice(0, 10)) {
    throw new AppError(ErrorCode.UPGRADE_QUOTE_EXPIRED, undefined, { invoice_id: invoice.id, quoted_on: invoice.payload['quoted_on'] ?? null });
  }
}

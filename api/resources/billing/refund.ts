import { z } from '@hono/zod-openapi';
import { formatMoney } from '../../../lib/money.js';
import { formatDateTime } from '../../../lib/time.js';
import { REFUND_STATUS_LABELS } from '../../../domain/billing/constants.js';
import { REFUND_METHODS, REFUND_STATUSES, type RefundRecord } from '../../../db/models/billing.js';
import { dateTimeString, moneyString } from '../../schemas.js';

/** The refund columns a resource reads: a model instance or a raw money record both fit. */
export type RefundSource = Pick<
  RefundRecord,
  'id' | 'refund_no' | 'user_id' | 'invoice_id' | 'refund_invoice_id' | 'payment_id' | 'amount' | 'balance_part' | 'third_party_part' | 'refund_method' | 'status' | 'reason' | 'scope' | 'out_request_no' | 'failure_reason' | 'operator_type' | 'operator_id' | 'operator_name' | 'refunded_at' | 'trace_id' | 'created_at'
>;

export const refundSchema = z
  .object({
    id: z.number().int(),
    refund_no: z.string(),
    user_id: z.number().int(),
    invoice_id: z.number().int(),
    refund_invoice_id: z.number().int().nullable(),
    payment_id: z.number().int().nullable(),
    amount: moneyString,
    balance_part: moneyString.openapi({ description: '原以余额支付的部分' }),
    third_party_part: moneyString.openapi({ description: '原以第三方支付的部分' }),
    currency: z.literal('CNY'),
    refund_method: z.enum(REFUND_METHODS),
    status: z.enum(REFUND_STATUSES),
    status_label: z.string(),
    reason: z.string(),
    scope: z.array(z.string()),
    out_request_no: z.string().nullable().openapi({ description: '原路退款时发给网关的退款请求号，重试时不变' }),
    failure_reason: z.string(),
    operator_type: z.string(),
    operator_id: z.number().int().nullable(),
    operator_name: z.string(),
    refunded_at: dateTimeString.nullable(),
    trace_id: z.string(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('Refund');

export function refundResource(r: RefundSource) {
  return {
    id: r.id,
    refund_no: r.refund_no,
    user_id: r.user_id,
    invoice_id: r.invoice_id,
    refund_invoice_id: r.refund_invoice_id,
    payment_id: r.payment_id,
    amount: formatMoney(r.amount),
    balance_part: formatMoney(r.balance_part),
    third_party_part: formatMoney(r.third_party_part),
    currency: 'CNY' as const,
    refund_method: r.refund_method,
    status: r.status,
    status_label: REFUND_STATUS_LABELS[r.status],
    reason: r.reason,
    scope: r.scope,
    out_request_no: r.out_request_no,
    failure_reason: r.failure_reason,
    operator_type: r.operator_type,
    operator_id: r.operator_id,
    operator_name: r.operator_name,
    refunded_at: formatDateTime(r.refunded_at),
    trace_id: r.trace_id,
    created_at: formatDateTime(r.created_at),
  };
}

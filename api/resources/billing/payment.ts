import { z } from '@hono/zod-openapi';
import { formatMoney } from '../../../lib/money.js';
import { formatDateTime } from '../../../lib/time.js';
import { PAYMENT_STATUS_LABELS } from '../../../domain/billing/constants.js';
import { PAID_SOURCES, PAYMENT_SETTLEMENTS, PAYMENT_STATUSES, type PaymentRecord } from '../../../db/models/billing.js';
import { dateTimeString, moneyString } from '../../schemas.js';

/** The payment columns a resource reads: a model instance or a raw money record both fit. */
export type PaymentSource = Pick<
  PaymentRecord,
  'id' | 'payment_no' | 'invoice_id' | 'user_id' | 'plugin_id' | 'gateway' | 'trade_no' | 'amount' | 'balance_part' | 'refunded_amount' | 'status' | 'settlement' | 'paid_source' | 'qr_code_url' | 'expires_at' | 'paid_at' | 'closed_at' | 'created_at'
>;

const shape = {
  id: z.number().int(),
  payment_no: z.string().openapi({ description: '商户订单号（即网关的 out_trade_no）' }),
  trade_no: z.string().nullable().openapi({ description: '第三方交易号' }),
  invoice_id: z.number().int(),
  status: z.enum(PAYMENT_STATUSES),
  status_label: z.string(),
  amount: moneyString.openapi({ description: '扫码支付金额（第三方部分）' }),
  balance_part: moneyString.openapi({ description: '组合支付中先行抵扣的余额部分' }),
  currency: z.literal('CNY'),
  qr_code_url: z.string().nullable().openapi({ description: '二维码内容（URL，买家扫码）；仅等待支付时返回' }),
  expires_at: dateTimeString.nullable(),
  paid_at: dateTimeString.nullable(),
  closed_at: dateTimeString.nullable(),
  created_at: dateTimeString.nullable(),
};

export const paymentSchema = z.object(shape).openapi('Payment');

/** The user's view of a QR payment: the QR URL only while it can still be paid. */
export function paymentResource(payment: PaymentSource) {
  return {
    id: payment.id,
    payment_no: payment.payment_no,
    trade_no: payment.trade_no,
    invoice_id: payment.invoice_id,
    status: payment.status,
    status_label: PAYMENT_STATUS_LABELS[payment.status],
    amount: formatMoney(payment.amount),
    balance_part: formatMoney(payment.balance_part),
    currency: 'CNY' as const,
    qr_code_url: payment.status === 'pending' && payment.qr_code_url !== '' ? payment.qr_code_url : null,
    expires_at: formatDateTime(payment.expires_at),
    paid_at: formatDateTime(payment.paid_at),
    closed_at: formatDateTime(payment.closed_at),
    created_at: formatDateTime(payment.created_at),
  };
}

export const adminPaymentSchema = z
  .object({
    ...shape,
    user_id: z.number().int(),
    gateway: z.string(),
    plugin_id: z.number().int().nullable().openapi({ description: '收款插件；插件被强制卸载后为 null' }),
    refunded_amount: moneyString,
    settlement: z.enum(PAYMENT_SETTLEMENTS).nullable().openapi({ description: 'invoice：用于结清账单；balance_credit：账单已无法支付，金额转入余额' }),
    paid_source: z.enum(PAID_SOURCES).nullable().openapi({ description: '确认到账的途径：notify 异步通知、poll 主动查询、close 关闭时查询' }),
  })
  .openapi('AdminPayment');

export function adminPaymentResource(payment: PaymentSource) {
  return {
    ...paymentResource(payment),
    user_id: payment.user_id,
    gateway: payment.gateway,
    plugin_id: payment.plugin_id,
    refunded_amount: formatMoney(payment.refunded_amount),
    settlement: payment.settlement,
    paid_source: payment.paid_source,
  };
}

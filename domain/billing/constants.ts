/**
 * Rules and labels of the money documents (decided here where the spec says "not shown";
 * docs/billing.md "Money" lists them); what each invoice type is (label, payable, refundable,
 * fulfilment, …) is its row in `invoice-kinds.ts`. The stored values themselves (types,
 * statuses, channels, ...) live beside the schema in `db/models/billing.ts`, next to the
 * database CHECKs of migration 0004.
 */
import type { InvoiceStatus, PaymentStatus, RefundStatus, TransactionType } from '../../db/models/billing.js';

/** Which parts of a paid invoice a refund request covers (a request parameter; stored as a plain array). */
export const REFUND_SCOPES = ['order', 'payment'] as const;
export type RefundScope = (typeof REFUND_SCOPES)[number];

export const INVOICE_STATUS_LABELS: Record<InvoiceStatus, string> = {
  unpaid: '待支付',
  paid: '已支付',
  partially_refunded: '部分退款',
  refunded: '已退款',
  cancelled: '已取消',
};

export const PAYMENT_STATUS_LABELS: Record<PaymentStatus, string> = {
  pending: '等待支付',
  paid: '已支付',
  closed: '已关闭',
  partially_refunded: '部分退款',
  refunded: '已退款',
};

export const TRANSACTION_TYPE_LABELS: Record<TransactionType, string> = {
  recharge: '充值',
  admin_recharge: '后台充值',
  admin_deduction: '后台扣款',
  payment: '余额支付',
  payment_reversal: '余额支付退回',
  refund: '退款',
  upgrade_credit: '降级退差价',
  commission_withdrawal: '佣金提现到余额',
};

export const REFUND_STATUS_LABELS: Record<RefundStatus, string> = {
  processing: '退款中',
  succeeded: '退款成功',
  failed: '退款失败',
};

/** User recharges: the amount range of `POST /api/v2/client/recharge`. */
export const RECHARGE_MIN_AMOUNT = '1.00';
export const RECHARGE_MAX_AMOUNT = '50000.00';

/** Admin adjustments: the upper bound of |amount| (a typo guard; NUMERIC(14,2) holds far more). */
export const ADJUSTMENT_MAX_AMOUNT = '1000000.00';

/** The fixed remark of an admin recharge's recharge record (spec: "a fixed remark"). */
export const ADMIN_RECHARGE_REMARK = '管理员后台充值';

/**
 * The platform's QR gateway notification route (spec: Events 2): the `notify_url` a QR payment
 * asks for, and the API route that receives it. The qrpay plugin keeps the same path as its
 * fallback for calls without a `notify_url` (a plugin never imports platform code).
 */
export const QRPAY_NOTIFY_PATH = '/api/v2/client/payment/qrpay/notify';

/**
 * The values of every money document (decided here where the spec says "not shown"; README
 * "Money" lists them). The database CHECKs of migration 0004 hold the same lists.
 */

/** `purchase` and `renew`/`traffic_package` have an order; `recharge`, `deduction` and `refund` (red entry) do not. */
export const INVOICE_TYPES = ['purchase', 'renew', 'traffic_package', 'recharge', 'deduction', 'refund'] as const;
export type InvoiceType = (typeof INVOICE_TYPES)[number];

/** `paid` means settled: red-entry refund invoices and admin documents are created `paid`. */
export const INVOICE_STATUSES = ['unpaid', 'paid', 'partially_refunded', 'refunded', 'cancelled'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const PAYMENT_CHANNELS = ['balance', 'qrpay', 'mixed', 'admin', 'free'] as const;
export type PaymentChannel = (typeof PAYMENT_CHANNELS)[number];

export const ORDER_TYPES = ['new_purchase', 'renewal', 'traffic_package'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

export const ORDER_STATUSES = ['pending', 'paid', 'completed', 'cancelled', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const PAYMENT_STATUSES = ['pending', 'paid', 'closed', 'partially_refunded', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** How a paid payment was applied: to its invoice, or (invoice no longer payable) credited to the balance. */
export const PAYMENT_SETTLEMENTS = ['invoice', 'balance_credit'] as const;
export type PaymentSettlement = (typeof PAYMENT_SETTLEMENTS)[number];

export const PAID_SOURCES = ['notify', 'poll', 'close'] as const;
export type PaidSource = (typeof PAID_SOURCES)[number];

export const TRANSACTION_TYPES = ['recharge', 'admin_recharge', 'admin_deduction', 'payment', 'payment_reversal', 'refund'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

export const RECHARGE_SCENES = ['new_purchase', 'renewal', 'user_recharge', 'admin_recharge', 'refund'] as const;
export type RechargeScene = (typeof RECHARGE_SCENES)[number];

/** `in`: money came in; `out`: a refund offset (negative amount) against an original record. */
export const RECHARGE_DIRECTIONS = ['in', 'out'] as const;
export type RechargeDirection = (typeof RECHARGE_DIRECTIONS)[number];

/** Where the money of the record came from: a payment gateway, or an admin credit. Offsets keep their original's. */
export const RECHARGE_ENTRY_TYPES = ['third_party', 'admin'] as const;
export type RechargeEntryType = (typeof RECHARGE_ENTRY_TYPES)[number];

export const REFUND_METHODS = ['balance', 'original'] as const;
export type RefundMethod = (typeof REFUND_METHODS)[number];

/** `balance` refunds succeed at once; `original` ones are `processing` until the gateway answers. */
export const REFUND_STATUSES = ['processing', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

export const REFUND_SCOPES = ['order', 'payment'] as const;
export type RefundScope = (typeof REFUND_SCOPES)[number];

export const OPERATOR_TYPES = ['admin', 'user', 'system'] as const;
export type OperatorType = (typeof OPERATOR_TYPES)[number];

export const INVOICE_TYPE_LABELS: Record<InvoiceType, string> = {
  purchase: '新购',
  renew: '续费',
  traffic_package: '流量包',
  recharge: '充值',
  deduction: '扣款',
  refund: '退款',
};

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
};

export const REFUND_STATUS_LABELS: Record<RefundStatus, string> = {
  processing: '退款中',
  succeeded: '退款成功',
  failed: '退款失败',
};

/** Invoices that can be paid: they have an order and fulfilment. */
export const PAYABLE_TYPES: readonly InvoiceType[] = ['purchase', 'renew', 'traffic_package', 'recharge'];
/** Invoices that can be paid from the balance (a recharge cannot). */
export const BALANCE_PAYABLE_TYPES: readonly InvoiceType[] = ['purchase', 'renew', 'traffic_package'];

export const ORDER_TYPE_BY_INVOICE: Partial<Record<InvoiceType, OrderType>> = {
  purchase: 'new_purchase',
  renew: 'renewal',
  traffic_package: 'traffic_package',
};

/** Scene of the recharge record written for a third-party payment (a traffic package is a purchase of an add-on). */
export const RECHARGE_SCENE_BY_INVOICE: Partial<Record<InvoiceType, Exclude<RechargeScene, 'refund'>>> = {
  purchase: 'new_purchase',
  renew: 'renewal',
  traffic_package: 'new_purchase',
  recharge: 'user_recharge',
};

/** User recharges: the amount range of `POST /api/v2/client/recharge`. */
export const RECHARGE_MIN_AMOUNT = '1.00';
export const RECHARGE_MAX_AMOUNT = '50000.00';

/** Admin adjustments: the upper bound of |amount| (a typo guard; NUMERIC(14,2) holds far more). */
export const ADJUSTMENT_MAX_AMOUNT = '1000000.00';

/** The fixed remark of an admin recharge's recharge record (spec: "a fixed remark"). */
export const ADMIN_RECHARGE_REMARK = '管理员后台充值';

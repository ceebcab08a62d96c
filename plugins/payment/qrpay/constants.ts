/** Gateway methods of the qrpay family (docs: qrpay-and-certify.md, "Methods"). */
export const QRPAY_GATEWAY_METHODS = {
  precreate: 'qrpay.trade.precreate',
  query: 'qrpay.trade.query',
  refund: 'qrpay.trade.refund',
  close: 'qrpay.trade.close',
} as const;
export type QrpayGatewayMethod = (typeof QRPAY_GATEWAY_METHODS)[keyof typeof QRPAY_GATEWAY_METHODS];

/** The platform's notification route (spec: Events 2); joined to `context.urls.publicBaseUrl`. */
export const QRPAY_NOTIFY_PATH = '/api/v2/client/payment/qrpay/notify';

export const TRADE_STATUSES = ['WAIT_BUYER_PAY', 'TRADE_CLOSED', 'TRADE_SUCCESS', 'TRADE_FINISHED'] as const;
export type TradeStatus = (typeof TRADE_STATUSES)[number];

/** Only these two mean the buyer paid. */
export const PAID_STATUSES: readonly TradeStatus[] = ['TRADE_SUCCESS', 'TRADE_FINISHED'];

export function isTradeStatus(value: unknown): value is TradeStatus {
  return typeof value === 'string' && (TRADE_STATUSES as readonly string[]).includes(value);
}

export const TRADE_STATUS_LABELS: Record<TradeStatus | 'NOT_FOUND', string> = {
  NOT_FOUND: '交易尚未创建（买家未扫码），等待支付',
  WAIT_BUYER_PAY: '等待买家付款',
  TRADE_CLOSED: '交易已关闭',
  TRADE_SUCCESS: '支付成功',
  TRADE_FINISHED: '交易已完结',
};

export const DEFAULT_TIMEOUT_MS = 10_000;
export const MIN_TIMEOUT_MS = 100;
export const MAX_TIMEOUT_MS = 60_000;

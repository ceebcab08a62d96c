/** Shared shapes of the qrpay sandbox gateway (docs: qrpay-and-certify.md). */

export const QRPAY_METHODS = ['qrpay.trade.precreate', 'qrpay.trade.query', 'qrpay.trade.refund', 'qrpay.trade.close'] as const;
export type QrpayMethod = (typeof QRPAY_METHODS)[number];

export function isQrpayMethod(value: string): value is QrpayMethod {
  return (QRPAY_METHODS as readonly string[]).includes(value);
}

/** The `..._response` member of an answer: every value a string, as the gateway sends it. */
export type GatewayAnswer = Record<string, string>;

export type SandboxTradeStatus = 'PRECREATED' | 'WAIT_BUYER_PAY' | 'TRADE_SUCCESS' | 'TRADE_CLOSED' | 'TRADE_FINISHED';

export type SandboxRefund = {
  outRequestNo: string;
  refundAmount: string;
  /** Cumulative refund fee of the trade right after this refund. */
  refundFee: string;
  gmtRefundPay: string;
};

export type SandboxTrade = {
  outTradeNo: string;
  /** Assigned when the buyer scans (before that, query answers "trade does not exist"). */
  tradeNo: string | null;
  subject: string;
  totalAmount: string;
  buyerPayAmount: string;
  refundFee: string;
  notifyUrl: string | null;
  qrCode: string;
  status: SandboxTradeStatus;
  gmtCreate: string;
  gmtPayment: string | null;
  refunds: Map<string, SandboxRefund>;
};

export type TradeSnapshot = Omit<SandboxTrade, 'refunds'> & { refunds: SandboxRefund[] };

export type NotificationDelivery = {
  url: string;
  fields: Record<string, string>;
  /** HTTP status of the last attempt; null when no attempt reached the receiver. */
  status: number | null;
  body: string | null;
  attempts: number;
  acknowledged: boolean;
};

export type QrpayStats = {
  calls: Record<string, number>;
  notifications: {
    /** Delivery attempts of genuine notifications (retries and duplicate copies included). */
    sent: number;
    /** Attempts answered with the plain text `success`. */
    acknowledged: number;
    forged: number;
    tampered: number;
    /** Notify URLs refused because they are not loopback addresses. */
    refused_urls: number;
    by_out_trade_no: Record<string, { sent: number; acknowledged: number }>;
  };
  refunds: {
    /** Refunds that moved money, per out_request_no (a repeat never adds one). */
    executed_by_out_request_no: Record<string, number>;
    /** Refund calls per out_request_no, repeats included. */
    requests_by_out_request_no: Record<string, number>;
  };
  failures_injected: number;
  answers_tampered: number;
};

export type FailureMode = 'business' | 'http500';

export type FailNextOptions = {
  mode?: FailureMode;
  code?: string;
  subCode?: string;
  msg?: string;
  subMsg?: string;
};

export type PayOutcome =
  | { ok: true; outTradeNo: string; tradeNo: string; totalAmount: string; gmtPayment: string }
  | { ok: false; reason: 'not_found' | 'already_paid' | 'closed' };

/** In-process control of the sandbox; the same switches exist under `${baseUrl}/__control/*`. */
export type QrpaySandboxControl = {
  /** The next `count` calls of `method` fail: a signed business failure (default) or HTTP 500 HTML. */
  failNext(method: QrpayMethod, count: number, options?: FailNextOptions): void;
  /** Delay every answer (or only `method`'s) by `ms`; 0 removes the delay. */
  setDelay(ms: number, method?: QrpayMethod): void;
  /** The next `count` answers of `method` are altered after signing (their signature no longer matches). */
  tamperNextAnswers(method: QrpayMethod, count: number): void;
  /** Each genuine notification is delivered `copies` times (each copy with its own retries). */
  setNotificationCopies(copies: number): void;
  /** Sends once a "paid" notification for the trade signed with a key that is not the gateway's. */
  sendForgedNotification(outTradeNo: string, options?: { notifyUrl?: string }): Promise<NotificationDelivery>;
  /** Sends once a genuinely signed "paid" notification whose amounts were changed after signing. */
  sendTamperedNotification(outTradeNo: string, options?: { totalAmount?: string; notifyUrl?: string }): Promise<NotificationDelivery>;
  /** What `POST /scan/<no>/pay` does: the buyer pays, then the notification is sent. */
  pay(outTradeNo: string): PayOutcome;
  /** Resolves once every notification delivery under way has finished (acknowledged or given up). */
  idle(): Promise<void>;
  stats(): QrpayStats;
  trade(outTradeNo: string): TradeSnapshot | null;
  /** Clears the switches and counters; trades stay. */
  reset(): void;
};

/**
 * The one list of error codes (spec "Errors"). The HTTP status follows the code's range;
 * the few codes the spec leaves open are decided here; docs/errors.md is written from this file.
 */
export const ErrorCode = {
  OK: 0,
  BAD_REQUEST: 40000,
  MALFORMED_BODY: 40002,
  SIGNATURE_INVALID: 40001,
  UNAUTHENTICATED: 40100,
  FORBIDDEN: 40300,
  PRECONDITION_REQUIRED: 40301,
  STEP_UP_REQUIRED: 40302,
  NOT_FOUND: 40400,
  METHOD_NOT_ALLOWED: 40500,
  PAYLOAD_TOO_LARGE: 41300,
  UNSUPPORTED_MEDIA_TYPE: 41500,
  CONFLICT: 40900,
  IN_USE: 40901,
  OUT_OF_STOCK: 40902,
  NOT_PURCHASABLE_ONLINE: 40903,
  PRICE_BELOW_UPSTREAM_COST: 40904,
  INVOICE_ALREADY_PAID: 40910,
  INSUFFICIENT_BALANCE: 40911,
  INVOICE_NOT_PAYABLE: 40912,
  PAYMENT_IN_PROGRESS: 40913,
  REFUND_EXCEEDS_REMAINING: 40914,
  INVOICE_NOT_REFUNDABLE: 40915,
  PAYMENT_AMOUNT_MISMATCH: 40916,
  REFUND_METHOD_UNAVAILABLE: 40917,
  NOTIFY_APP_MISMATCH: 40918,
  IDEMPOTENCY_KEY_IN_PROGRESS: 40920,
  RENEWAL_INVOICE_EXISTS: 40940,
  SERVICE_ORDER_IN_PROGRESS: 40941,
  SERVICE_NOT_RENEWABLE: 40942,
  SERVICE_CONSOLE_READ_ONLY: 40943,
  SERVICE_NOT_ACTIVE: 40944,
  SERVICE_ORDER_NOT_AWAITING: 40945,
  TRAFFIC_INVOICE_EXISTS: 40946,
  SERVICE_ACTION_UNSUPPORTED: 40947,
  UPGRADE_PENDING: 40960,
  SERVICE_NOT_UPGRADABLE: 40961,
  UPGRADE_QUOTE_EXPIRED: 40962,
  CONSOLE_LIMIT_REACHED: 40950,
  PORT_TAKEN: 40951,
  COUPON_UNAVAILABLE: 40980,
  WITHDRAWAL_STATE_CONFLICT: 40981,
  COMMISSION_INSUFFICIENT: 40982,
  SUPPLIER_REFUSED: 40930,
  PROVISIONING_NOT_AWAITING: 40931,
  TICKET_CLOSED: 40955,
  ASSET_LINK_EXPIRED: 41000,
  VERIFICATION_ALREADY_VERIFIED: 40970,
  VERIFICATION_IN_PROGRESS: 40971,
  VERIFICATION_IDENTITY_IN_USE: 40972,
  VERIFICATION_NOT_RESTARTABLE: 40973,
  VERIFICATION_AWAITING_PAYMENT: 40974,
  VERIFICATION_NOT_BOUND: 40975,
  RECONCILIATION_FINDING_STATE: 40990,
  VALIDATION: 42200,
  TOO_MANY_REQUESTS: 42900,
  INTERNAL: 50000,
  DEPENDENCY_UNAVAILABLE: 50300,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

const explicitStatus: Record<number, number> = {
  [ErrorCode.SIGNATURE_INVALID]: 401,
  [ErrorCode.METHOD_NOT_ALLOWED]: 405,
  [ErrorCode.ASSET_LINK_EXPIRED]: 410,
  [ErrorCode.PAYLOAD_TOO_LARGE]: 413,
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE]: 415,
  [ErrorCode.TOO_MANY_REQUESTS]: 429,
  [ErrorCode.DEPENDENCY_UNAVAILABLE]: 503,
};

export function httpStatusFor(code: number): number {
  if (code === 0) return 200;
  const explicit = explicitStatus[code];
  if (explicit) return explicit;
  if (code >= 40000 && code < 40100) return 400;
  if (code >= 40100 && code < 40200) return 401;
  if (code >= 40300 && code < 40400) return 403;
  if (code >= 40400 && code < 40500) return 404;
  if (code >= 40900 && code < 41000) return 409;
  if (code >= 42200 && code < 42300) return 422;
  if (code >= 42900 && code < 43000) return 429;
  return 500;
}

export const defaultMessages: Record<number, string> = {
  [ErrorCode.BAD_REQUEST]: '请求无效',
  [ErrorCode.MALFORMED_BODY]: '请求体不是有效的 JSON',
  [ErrorCode.SIGNATURE_INVALID]: '回调签名校验失败',
  [ErrorCode.UNAUTHENTICATED]: '未登录或登录已过期',
  [ErrorCode.FORBIDDEN]: '没有权限执行此操作',
  [ErrorCode.PRECONDITION_REQUIRED]: '请先完成邮箱验证或实名认证',
  [ErrorCode.STEP_UP_REQUIRED]: '此操作需要重新输入两步验证码',
  [ErrorCode.NOT_FOUND]: '资源不存在',
  [ErrorCode.METHOD_NOT_ALLOWED]: '不支持该请求方法',
  [ErrorCode.PAYLOAD_TOO_LARGE]: '请求体过大',
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE]: '不支持的请求内容类型，请以 application/json 提交',
  [ErrorCode.CONFLICT]: '操作冲突，请刷新后重试',
  [ErrorCode.IN_USE]: '资源仍被业务数据引用',
  [ErrorCode.OUT_OF_STOCK]: '商品库存不足',
  [ErrorCode.NOT_PURCHASABLE_ONLINE]: '该商品暂不支持在线购买',
  [ErrorCode.PRICE_BELOW_UPSTREAM_COST]: '该商品上游成本已高于售价，暂停销售，请等待管理员调整价格',
  [ErrorCode.INVOICE_ALREADY_PAID]: '账单已支付，请勿重复支付',
  [ErrorCode.INSUFFICIENT_BALANCE]: '账户余额不足',
  [ErrorCode.INVOICE_NOT_PAYABLE]: '账单当前状态不可支付',
  [ErrorCode.PAYMENT_IN_PROGRESS]: '账单有进行中的扫码支付，请完成或等待其关闭后再试',
  [ErrorCode.REFUND_EXCEEDS_REMAINING]: '退款金额超过可退金额',
  [ErrorCode.INVOICE_NOT_REFUNDABLE]: '账单当前状态不可退款',
  [ErrorCode.PAYMENT_AMOUNT_MISMATCH]: '支付金额与支付单金额不一致',
  [ErrorCode.REFUND_METHOD_UNAVAILABLE]: '该账单不支持所选的退款方式',
  [ErrorCode.NOTIFY_APP_MISMATCH]: '支付通知与本平台的支付配置不一致',
  [ErrorCode.IDEMPOTENCY_KEY_IN_PROGRESS]: '相同幂等键的请求正在处理中，请稍后重试',
  [ErrorCode.RENEWAL_INVOICE_EXISTS]: '该服务已有未支付的续费账单，请先支付或取消',
  [ErrorCode.SERVICE_ORDER_IN_PROGRESS]: '该服务有正在处理的服务订单（续费、流量包或升降级），请稍后再试',
  [ErrorCode.SERVICE_NOT_RENEWABLE]: '服务当前状态不可续费',
  [ErrorCode.SERVICE_CONSOLE_READ_ONLY]: '该服务未绑定上游主机，控制台为只读',
  [ErrorCode.SERVICE_NOT_ACTIVE]: '服务未处于运行状态，暂不支持此操作',
  [ErrorCode.SERVICE_ORDER_NOT_AWAITING]: '该服务订单（续费、流量包或升降级）当前不在等待管理员处理的状态',
  [ErrorCode.TRAFFIC_INVOICE_EXISTS]: '该服务已有未支付的流量包账单，请先支付或取消',
  [ErrorCode.SERVICE_ACTION_UNSUPPORTED]: '该服务不支持此操作',
  [ErrorCode.UPGRADE_PENDING]: '该服务已有待处理的配置变更，请先支付或取消',
  [ErrorCode.SERVICE_NOT_UPGRADABLE]: '该服务当前不能升降级配置',
  [ErrorCode.UPGRADE_QUOTE_EXPIRED]: '升降级报价已过期，请取消后重新下单',
  [ErrorCode.CONSOLE_LIMIT_REACHED]: '已达到数量上限',
  [ErrorCode.PORT_TAKEN]: '外网端口已被占用，请换一个端口',
  [ErrorCode.COUPON_UNAVAILABLE]: '优惠券已被领完或已达使用上限',
  [ErrorCode.WITHDRAWAL_STATE_CONFLICT]: '提现申请当前状态不允许此操作',
  [ErrorCode.COMMISSION_INSUFFICIENT]: '可提现佣金不足',
  [ErrorCode.SUPPLIER_REFUSED]: '上游供应商拒绝了该请求',
  [ErrorCode.PROVISIONING_NOT_AWAITING]: '该开通当前不在等待管理员处理的状态',
  [ErrorCode.TICKET_CLOSED]: '工单已关闭，如需继续咨询请提交新工单',
  [ErrorCode.ASSET_LINK_EXPIRED]: '文件链接已过期，请刷新页面后重新获取',
  [ErrorCode.VERIFICATION_ALREADY_VERIFIED]: '您已完成实名认证',
  [ErrorCode.VERIFICATION_IN_PROGRESS]: '您有进行中的实名认证，请完成或重新发起',
  [ErrorCode.VERIFICATION_IDENTITY_IN_USE]: '该身份信息已完成过实名认证，不能用于其他账号',
  [ErrorCode.VERIFICATION_NOT_RESTARTABLE]: '没有可重新发起的实名认证',
  [ErrorCode.VERIFICATION_AWAITING_PAYMENT]: '您有待支付的实名认证账单，请先支付或取消该账单',
  [ErrorCode.VERIFICATION_NOT_BOUND]: '该用户未完成实名认证',
  [ErrorCode.RECONCILIATION_FINDING_STATE]: '该对账差异当前状态不允许此操作',
  [ErrorCode.VALIDATION]: '参数校验失败',
  [ErrorCode.TOO_MANY_REQUESTS]: '请求过于频繁，请稍后再试',
  [ErrorCode.INTERNAL]: '服务器内部错误，请稍后再试',
  [ErrorCode.DEPENDENCY_UNAVAILABLE]: '服务暂时不可用，请稍后再试',
};

/**
 * When each code is answered (data for docs/errors.md, written by `npm run docs:generate`;
 * "decided" marks a code or status the spec leaves open and this platform decided).
 */
export const errorMeanings: Record<ErrorCodeValue, string> = {
  [ErrorCode.OK]: 'success (always HTTP 200)',
  [ErrorCode.BAD_REQUEST]: 'bad request; also a gateway notification that is not a form, and a URL or header block over 16 KB (then HTTP 431)',
  [ErrorCode.SIGNATURE_INVALID]: 'callback signature failed',
  [ErrorCode.MALFORMED_BODY]: 'request body is not valid JSON (decided: a 40000-range code)',
  [ErrorCode.UNAUTHENTICATED]: 'not logged in, bad credentials, token expired or revoked',
  [ErrorCode.FORBIDDEN]: 'wrong surface, missing permission, disabled account, or a personal access token on a route outside its scopes (or closed to tokens)',
  [ErrorCode.PRECONDITION_REQUIRED]: 'e-mail or real-name precondition not met (docs/identity.md)',
  [ErrorCode.STEP_UP_REQUIRED]: 'the route (`stepUp` in its access) needs a second-factor code verified on this session within `security.step_up_max_age_minutes` (decided; docs/security.md)',
  [ErrorCode.NOT_FOUND]: 'resource or route missing',
  [ErrorCode.METHOD_NOT_ALLOWED]: 'known path, method not allowed; the `Allow` header lists the methods (decided)',
  [ErrorCode.PAYLOAD_TOO_LARGE]: "request body over the route's limit (256 KB for JSON), or an uploaded file over its size setting (decided)",
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE]: 'request body of a content type the route does not take (JSON routes take only `application/json`) (decided)',
  [ErrorCode.CONFLICT]: 'conflict: duplicate e-mail, role code or username; disabling yourself; editing the super role; enabling a plugin whose task key is taken; triggering a task that is still running',
  [ErrorCode.IN_USE]: 'resource still referenced by business data (a referenced plugin without `force=1`, named in `data.references`; a menu, group or category that still holds children) (decided)',
  [ErrorCode.OUT_OF_STOCK]: 'product out of stock for the quantity asked (quote, purchase) (decided)',
  [ErrorCode.NOT_PURCHASABLE_ONLINE]: 'product not purchasable online (type `other` without an enabled plugin purchase schema) (decided)',
  [ErrorCode.PRICE_BELOW_UPSTREAM_COST]: 'quote or new purchase of a product held because its upstream cost is above our price (setting `economics.hold_below_cost`); renewals are never refused (decided)',
  [ErrorCode.INVOICE_ALREADY_PAID]: 'invoice already paid: a second payment of it (balance or QR) changes nothing (decided)',
  [ErrorCode.INSUFFICIENT_BALANCE]: 'balance too low for the payment (`data.balance`, `data.required`) (decided)',
  [ErrorCode.INVOICE_NOT_PAYABLE]: 'invoice cannot be paid (cancelled, or a kind that is never paid) (decided)',
  [ErrorCode.PAYMENT_IN_PROGRESS]: 'a QR payment of the invoice is still pending (balance payment, cancel, or its expired predecessor still closing) (decided)',
  [ErrorCode.REFUND_EXCEEDS_REMAINING]: 'refund above what is left to refund (`data.remaining`; refunds still processing count)',
  [ErrorCode.INVOICE_NOT_REFUNDABLE]: 'invoice or its order not in a refundable state, or an invoice kind without an order (decided)',
  [ErrorCode.PAYMENT_AMOUNT_MISMATCH]: "a paid amount reported by the gateway differs from the payment's amount: nothing is settled",
  [ErrorCode.REFUND_METHOD_UNAVAILABLE]: 'refund method not possible (no third-party part left for `original`, payment plugin uninstalled) (decided)',
  [ErrorCode.NOTIFY_APP_MISMATCH]: 'gateway notification for another app id (decided)',
  [ErrorCode.IDEMPOTENCY_KEY_IN_PROGRESS]: 'a request with the same `Idempotency-Key` and content is still being processed: retry shortly (decided; docs/api.md "Idempotency keys")',
  [ErrorCode.RENEWAL_INVOICE_EXISTS]: 'the service already has an unpaid renewal invoice of another period (`data.invoice_id`) (decided)',
  [ErrorCode.SERVICE_ORDER_IN_PROGRESS]: 'a paid service order (renewal, traffic package or upgrade) of the service is still being fulfilled (decided)',
  [ErrorCode.SERVICE_NOT_RENEWABLE]: 'service not renewable: one-time, or not active or suspended (decided)',
  [ErrorCode.SERVICE_CONSOLE_READ_ONLY]: 'console read-only: the service has no upstream host, or its plugin is gone (decided)',
  [ErrorCode.SERVICE_NOT_ACTIVE]: 'console action on a service that is not active (decided)',
  [ErrorCode.SERVICE_ORDER_NOT_AWAITING]: 'retry or cancel of a service order that is not awaiting an admin decision (decided)',
  [ErrorCode.TRAFFIC_INVOICE_EXISTS]: 'the service already has an unpaid traffic-package invoice for another package (decided)',
  [ErrorCode.SERVICE_ACTION_UNSUPPORTED]: "the service's console does not offer this action (type or plugin capabilities) (decided)",
  [ErrorCode.UPGRADE_PENDING]: 'the service already has a pending configuration change (an unpaid or running upgrade) or an unfinished renewal (`data.invoice_no`) (decided)',
  [ErrorCode.SERVICE_NOT_UPGRADABLE]: 'the service cannot change its configuration: not active, one-time, no due date, product gone or no longer sold for its period, or its period has ended (decided)',
  [ErrorCode.UPGRADE_QUOTE_EXPIRED]: 'an upgrade invoice is a quote for the Shanghai day it was made; paying it on a later day is refused (decided)',
  [ErrorCode.CONSOLE_LIMIT_REACHED]: 'a console limit is reached: NAT rules or upstream security rules per host, security groups per user (20) or per service (5), rules per group (50) (decided)',
  [ErrorCode.PORT_TAKEN]: "the external port of a NAT rule is taken (by this host's rules, or upstream by another host) (decided)",
  [ErrorCode.COUPON_UNAVAILABLE]: "the coupon's last use (or the user's own limit) was taken meanwhile: the invoice is not created (decided)",
  [ErrorCode.WITHDRAWAL_STATE_CONFLICT]: 'a withdrawal is not in the state the action expects; of racing admin actions all but one get this (decided)',
  [ErrorCode.COMMISSION_INSUFFICIENT]: 'not enough available commission for the withdrawal (decided)',
  [ErrorCode.SUPPLIER_REFUSED]: 'the upstream supplier refused for good (product gone, out of stock, balance too low…; its Chinese reason is the message) (decided)',
  [ErrorCode.PROVISIONING_NOT_AWAITING]: 'retry or cancel of a provisioning that is not waiting for an admin (decided)',
  [ErrorCode.TICKET_CLOSED]: 'ticket closed: a customer reply, a second close, or a staff public reply (reopen first) (decided)',
  [ErrorCode.ASSET_LINK_EXPIRED]: 'a signed file link (`/api/secure-assets/view`) past its `expires` (decided)',
  [ErrorCode.VERIFICATION_ALREADY_VERIFIED]: 'real-name verification: already verified (decided)',
  [ErrorCode.VERIFICATION_IN_PROGRESS]: 'real-name verification: an attempt is in progress (`data.attempt_no`): finish or restart it (decided)',
  [ErrorCode.VERIFICATION_IDENTITY_IN_USE]: 'real-name verification: this identity already verifies another account (which one is never said) (decided)',
  [ErrorCode.VERIFICATION_NOT_RESTARTABLE]: 'real-name verification: nothing to restart (no attempt, or the last one passed or failed) (decided)',
  [ErrorCode.VERIFICATION_AWAITING_PAYMENT]: "real-name verification: the previous paid attempt's invoice is unpaid (`data.invoice_id`) (decided)",
  [ErrorCode.VERIFICATION_NOT_BOUND]: 'admin unbinding of a user who is not verified (decided)',
  [ErrorCode.RECONCILIATION_FINDING_STATE]: 'a reconciliation finding is not in a state the action takes: acknowledge needs `open`, resolve `open` or `acknowledged`; of racing admin actions all but one get this (decided)',
  [ErrorCode.VALIDATION]: 'validation failed or a business rule violated; `data.errors` (at most 20 fields) and `data.error_count`',
  [ErrorCode.TOO_MANY_REQUESTS]: 'login throttled; ticket replies over the per-user rate; verification codes or captcha images asked too often (decided)',
  [ErrorCode.INTERNAL]: 'server error; `data.request_id` names the log lines',
  [ErrorCode.DEPENDENCY_UNAVAILABLE]: 'a dependency is down: health check, Temporal unreachable for a schedule or provisioning action, supplier unreachable, or an API that is stopping (decided)',
};

export type FieldErrors = Record<string, string[]>;

/**
 * An empty field → messages map without a prototype: field names come from the request, and a
 * field named `constructor`, `toString` or `__proto__` must be a key like any other, not a member
 * of Object.prototype (`errors[key] ??= []` found the inherited function and crashed).
 */
export function fieldErrorMap(): FieldErrors {
  return Object.create(null) as FieldErrors;
}

/** A failure that reaches the client as the envelope: a code, a Chinese message, optional data. */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: number;
  readonly data: unknown;
  readonly httpStatus: number;

  constructor(code: number, message?: string, data: unknown = null, httpStatus?: number) {
    super(message ?? defaultMessages[code] ?? defaultMessages[ErrorCode.INTERNAL]);
    this.code = code;
    this.data = data;
    this.httpStatus = httpStatus ?? httpStatusFor(code);
  }
}

/** Bounds of a validation answer: hostile input must not make the error map itself large. */
export const VALIDATION_LIMITS = { fields: 20, messagesPerField: 5, fieldNameLength: 100, messageLength: 200 } as const;

/** Cuts a text (an echoed value, a field path) to `max` characters, never splitting a surrogate pair. */
export function cutText(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/**
 * `data.errors` as the client sees it: at most VALIDATION_LIMITS.fields fields (the first ones),
 * each with a few messages, names and messages cut; `data.error_count` says how many fields failed.
 */
export function boundedFieldErrors(errors: FieldErrors): { errors: FieldErrors; error_count: number } {
  const entries = Object.entries(errors);
  const bounded = fieldErrorMap();
  for (const [field, messages] of entries.slice(0, VALIDATION_LIMITS.fields)) {
    bounded[cutText(field, VALIDATION_LIMITS.fieldNameLength)] = messages
      .slice(0, VALIDATION_LIMITS.messagesPerField)
      .map((m) => cutText(m, VALIDATION_LIMITS.messageLength));
  }
  return { errors: bounded, error_count: entries.length };
}

/** A 42200 with every field error; the answer is bounded when it leaves (api/middleware/errors.ts). */
export function validationError(errors: FieldErrors, message = defaultMessages[ErrorCode.VALIDATION]): AppError {
  return new AppError(ErrorCode.VALIDATION, message, { errors });
}

export function notFound(message = defaultMessages[ErrorCode.NOT_FOUND]): AppError {
  return new AppError(ErrorCode.NOT_FOUND, message);
}

export function forbidden(message = defaultMessages[ErrorCode.FORBIDDEN]): AppError {
  return new AppError(ErrorCode.FORBIDDEN, message);
}

export function unauthenticated(message = defaultMessages[ErrorCode.UNAUTHENTICATED]): AppError {
  return new AppError(ErrorCode.UNAUTHENTICATED, message);
}

export function conflict(message = defaultMessages[ErrorCode.CONFLICT], data: unknown = null): AppError {
  return new AppError(ErrorCode.CONFLICT, message, data);
}

import { UpstreamError, type ErrorKind, type UpstreamFailureReason } from './upstream-error.js';

type Failure = { kind: ErrorKind; reason: UpstreamFailureReason; message: string };
type StatusMeaning = { success: true; message: string } | ({ success: false } & Failure);

/** Every `status` the upstream answers with, mapped to our meaning and a Chinese message. */
export const UPSTREAM_STATUS_MEANINGS: Record<number, StatusMeaning> = {
  200: { success: true, message: '上游请求成功' },
  1001: { success: true, message: '上游账单已支付' },
  400: { success: false, message: '上游业务处理失败', kind: 'permanent', reason: 'business_error' },
  405: { success: false, message: '上游登录凭证重新登录后仍被拒绝，请稍后重试', kind: 'transient', reason: 'token_rejected' },
  406: { success: false, message: '上游参数校验失败', kind: 'permanent', reason: 'validation_failed' },
  410: { success: false, message: '上游账户需要先完成实名认证', kind: 'permanent', reason: 'realname_required' },
  415: { success: false, message: '上游账户需要先绑定手机号', kind: 'permanent', reason: 'phone_binding_required' },
  503: { success: false, message: '上游系统维护中，请稍后重试', kind: 'transient', reason: 'upstream_maintenance' },
};

/**
 * Business errors (400) and validation errors (406) carry their meaning only in `msg`; the
 * ones a provisioning must tell apart are recognised by the upstream's wording.
 */
const MESSAGE_RULES: Array<{ status: number; pattern: RegExp; failure: Failure }> = [
  { status: 400, pattern: /余额不足|余额不够|insufficient (balance|credit)/i, failure: { kind: 'permanent', reason: 'supplier_balance_insufficient', message: '上游供应商账户余额不足，请充值后重试' } },
  { status: 400, pattern: /库存不足|售罄|缺货|无库存|out of stock/i, failure: { kind: 'permanent', reason: 'out_of_stock', message: '上游商品库存不足' } },
  { status: 400, pattern: /(商品|产品).*(不存在|下架)/, failure: { kind: 'permanent', reason: 'product_gone', message: '上游商品不存在或已下架' } },
  { status: 400, pattern: /端口.*(占用|已被使用)/, failure: { kind: 'permanent', reason: 'port_taken', message: '上游外网端口已被占用，请换一个端口' } },
  { status: 400, pattern: /数量.*上限|超出.*上限/, failure: { kind: 'permanent', reason: 'limit_reached', message: '已达到上游允许的数量上限' } },
  { status: 400, pattern: /购物车为空/, failure: { kind: 'permanent', reason: 'cart_empty', message: '上游购物车为空，请重新加入购物车后再下单' } },
  { status: 406, pattern: /(商品|产品).*(不存在|下架)/, failure: { kind: 'permanent', reason: 'product_gone', message: '上游商品不存在或已下架' } },
  { status: 406, pattern: /不存在|not\s*found/i, failure: { kind: 'permanent', reason: 'not_found', message: '上游数据不存在' } },
];

export function isKnownStatus(status: number): boolean {
  return UPSTREAM_STATUS_MEANINGS[status] !== undefined;
}

export function isSuccessStatus(status: number): boolean {
  return UPSTREAM_STATUS_MEANINGS[status]?.success === true;
}

/** The failure for a non-success `status`; the upstream's own `msg` goes to diagnostics only. */
export function statusFailure(status: number, upstreamMessage: string): UpstreamError {
  const rule = MESSAGE_RULES.find((r) => r.status === status && r.pattern.test(upstreamMessage));
  const meaning = UPSTREAM_STATUS_MEANINGS[status];
  const failure: Failure | null = rule ? rule.failure : meaning && !meaning.success ? meaning : null;
  if (!failure) {
    return new UpstreamError({ reason: 'unknown_status', kind: 'permanent', message: '上游返回了无法识别的状态', upstreamStatus: status, upstreamMessage });
  }
  return new UpstreamError({ ...failure, upstreamStatus: status, upstreamMessage });
}

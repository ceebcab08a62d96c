import { UpstreamError, type ErrorKind, type UpstreamFailureReason } from './upstream-error.js';

type StatusMeaning = { success: true; message: string } | { success: false; message: string; kind: ErrorKind; reason: UpstreamFailureReason };

/** Every `status` the upstream answers with, mapped to our meaning and a Chinese message. */
export const UPSTREAM_STATUS_MEANINGS: Record<number, StatusMeaning> = {
  200: { success: true, message: '上游请求成功' },
  1001: { success: true, message: '上游账单已支付' },
  400: { success: false, message: '上游业务处理失败', kind: 'permanent', reason: 'business' },
  405: { success: false, message: '上游登录凭证无效或已过期，重新登录后仍被拒绝', kind: 'permanent', reason: 'auth' },
  406: { success: false, message: '上游参数校验失败或数据不存在', kind: 'permanent', reason: 'validation' },
  410: { success: false, message: '上游账户需要先完成实名认证', kind: 'permanent', reason: 'verification_required' },
  415: { success: false, message: '上游账户需要先绑定手机号', kind: 'permanent', reason: 'phone_binding_required' },
  503: { success: false, message: '上游系统维护中，请稍后重试', kind: 'retryable', reason: 'maintenance' },
};

export function isSuccessStatus(status: number): boolean {
  return UPSTREAM_STATUS_MEANINGS[status]?.success === true;
}

/** The failure for a non-success `status`; the upstream's own `msg` goes to diagnostics only. */
export function statusFailure(status: number, upstreamMessage: string): UpstreamError {
  const meaning = UPSTREAM_STATUS_MEANINGS[status];
  if (!meaning || meaning.success) {
    return new UpstreamError({ reason: 'unknown_status', kind: 'permanent', message: '上游返回了无法识别的状态', upstreamStatus: status, upstreamMessage });
  }
  return new UpstreamError({ reason: meaning.reason, kind: meaning.kind, message: meaning.message, upstreamStatus: status, upstreamMessage });
}

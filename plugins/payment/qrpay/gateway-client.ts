import { formatDateTime } from '../../../lib/time.js';
import type { QrpayConfig } from './config.js';
import type { QrpayGatewayMethod } from './constants.js';
import type { Failure } from './result.js';
import { buildSignString, extractJsonMember, responseMemberName, sign, verify } from './signing.js';

const MAX_ANSWER_CHARS = 256 * 1024;
const EXCERPT_CHARS = 500;

/** A verified gateway answer: its `..._response` member, parsed from exactly the signed text. */
export type GatewayAnswer = {
  code: string;
  subCode: string;
  fields: Record<string, unknown>;
  diagnostics: Record<string, unknown>;
};

export type GatewayOutcome = { ok: true; answer: GatewayAnswer } | { ok: false; failure: Failure };

export type GatewayRequest = {
  method: QrpayGatewayMethod;
  bizContent: Record<string, string>;
  notifyUrl?: string;
};

function str(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

function excerpt(text: string): string {
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

/** The signed form of a request (docs: "Calling the gateway", "Signing"). */
export function buildRequestParams(config: QrpayConfig, request: GatewayRequest, now: Date = new Date()): Record<string, string> {
  const params: Record<string, string> = {
    app_id: config.appId,
    method: request.method,
    format: 'JSON',
    charset: 'utf-8',
    sign_type: 'RSA2',
    timestamp: formatDateTime(now) ?? '',
    version: '1.0',
    biz_content: JSON.stringify(request.bizContent),
  };
  if (request.notifyUrl) params.notify_url = request.notifyUrl;
  params.sign = sign(buildSignString(params), config.merchantPrivateKey);
  return params;
}

/**
 * Calls the gateway and verifies the answer's signature before anything in it is used. Signed
 * business failures come back as answers; transport problems, unsigned or badly signed
 * answers come back as failures with Chinese messages (raw text only in `diagnostics`).
 */
export async function callGateway(config: QrpayConfig, request: GatewayRequest, signal: AbortSignal): Promise<GatewayOutcome> {
  const base = { method: request.method };
  const body = new URLSearchParams(buildRequestParams(config, request)).toString();
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), config.timeoutMs);
  const combined = AbortSignal.any([signal, timeout.signal]);
  let status: number;
  let text: string;
  try {
    const res = await fetch(config.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8', accept: 'application/json' },
      body,
      signal: combined,
      redirect: 'error',
    });
    status = res.status;
    text = await res.text();
  } catch (err) {
    const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    if (signal.aborted) {
      return { ok: false, failure: { message: '支付网关请求已取消（插件调用超时）', errorCode: 'cancelled', retryable: true, diagnostics: { ...base, error: reason } } };
    }
    if (timeout.signal.aborted) {
      return { ok: false, failure: { message: '支付网关请求超时，请稍后重试', errorCode: 'gateway_timeout', retryable: true, diagnostics: { ...base, error: reason, timeout_ms: config.timeoutMs } } };
    }
    return { ok: false, failure: { message: '无法连接支付网关，请稍后重试', errorCode: 'gateway_unreachable', retryable: true, diagnostics: { ...base, error: reason } } };
  } finally {
    clearTimeout(timer);
  }

  const seen = { ...base, http_status: status, body: excerpt(text) };
  if (status < 200 || status >= 300) {
    const retryable = status >= 500 || status === 429;
    return { ok: false, failure: { message: '支付网关暂时不可用，请稍后重试', errorCode: 'gateway_http_error', retryable, diagnostics: seen } };
  }
  const malformed: Failure = { message: '支付网关响应格式无效', errorCode: 'gateway_malformed_answer', retryable: true, diagnostics: seen };
  if (text.length > MAX_ANSWER_CHARS) return { ok: false, failure: malformed };

  const memberName = responseMemberName(request.method);
  const memberText = extractJsonMember(text, memberName) ?? extractJsonMember(text, 'error_response');
  if (memberText === null) return { ok: false, failure: malformed };
  let signature: unknown;
  try {
    signature = (JSON.parse(text) as { sign?: unknown }).sign;
  } catch {
    return { ok: false, failure: malformed };
  }
  if (typeof signature !== 'string' || !verify(memberText, signature, config.gatewayPublicKey)) {
    return {
      ok: false,
      failure: { message: '支付网关响应签名校验失败', errorCode: 'gateway_signature_invalid', retryable: false, diagnostics: seen },
    };
  }

  const member: unknown = JSON.parse(memberText);
  if (member === null || typeof member !== 'object' || Array.isArray(member)) return { ok: false, failure: malformed };
  const fields = member as Record<string, unknown>;
  const code = str(fields.code);
  const subCode = str(fields.sub_code);
  return {
    ok: true,
    answer: {
      code,
      subCode,
      fields,
      diagnostics: { ...base, http_status: status, code, sub_code: subCode, msg: str(fields.msg), sub_msg: str(fields.sub_msg) },
    },
  };
}

import { randomBytes } from 'node:crypto';
import type { SmsConfig } from './config.js';
import { signParams } from './signing.js';

export type SmsFailureKind = 'timeout' | 'network' | 'server' | 'auth' | 'rate_limited' | 'invalid_phone' | 'template' | 'rejected' | 'bad_answer';

export type SmsOutcome =
  | { ok: true; body: Record<string, unknown> }
  | { ok: false; kind: SmsFailureKind; httpStatus: number | null; code: string | null; raw: string };

const AUTH_CODES = new Set(['InvalidAccessKeyId.NotFound', 'SignatureDoesNotMatch', 'InvalidTimeStamp.Expired', 'SignatureNonceUsed', 'MissingSignatureNonce']);
const TEMPLATE_CODES = new Set(['isv.SMS_SIGNATURE_ILLEGAL', 'isv.SMS_TEMPLATE_ILLEGAL', 'isv.TEMPLATE_MISSING_PARAMETERS', 'isv.INVALID_JSON_PARAM']);

function classify(status: number, code: string | null): SmsFailureKind {
  if (status >= 500) return 'server';
  if (status === 429 || code === 'isv.BUSINESS_LIMIT_CONTROL') return 'rate_limited';
  if (code === 'isv.MOBILE_NUMBER_ILLEGAL') return 'invalid_phone';
  if (code !== null && AUTH_CODES.has(code)) return 'auth';
  if (status === 401 || status === 403) return 'auth';
  if (code !== null && TEMPLATE_CODES.has(code)) return 'template';
  return 'rejected';
}

/** One signed POST; adds access_key_id, timestamp, nonce and signature. Never throws. */
export async function callGateway(config: SmsConfig, path: string, params: Record<string, string>, signal: AbortSignal): Promise<SmsOutcome> {
  const signed: Record<string, string> = {
    ...params,
    access_key_id: config.accessKeyId,
    timestamp: String(Math.floor(Date.now() / 1000)),
    nonce: randomBytes(16).toString('hex'),
  };
  signed.signature = signParams(config.accessKeySecret, signed);
  let status: number;
  let raw: string;
  try {
    const res = await fetch(`${config.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(signed),
      signal,
    });
    status = res.status;
    raw = await res.text();
  } catch (err) {
    return { ok: false, kind: signal.aborted ? 'timeout' : 'network', httpStatus: null, code: null, raw: err instanceof Error ? err.message : String(err) };
  }
  let body: Record<string, unknown> | null = null;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    body = null;
  }
  const code = typeof body?.code === 'string' ? body.code : null;
  if (status === 200 && code === 'OK' && body) return { ok: true, body };
  const kind = body === null && status < 500 ? 'bad_answer' : classify(status, code);
  return { ok: false, kind, httpStatus: status, code, raw: raw.slice(0, 2000) };
}

const MESSAGES: Record<SmsFailureKind, string> = {
  timeout: '短信服务响应超时，请稍后重试',
  network: '无法连接短信服务，请稍后重试',
  server: '短信服务暂时不可用，请稍后重试',
  auth: '短信服务鉴权失败，请检查 AccessKey 配置',
  rate_limited: '短信发送过于频繁，请稍后再试',
  invalid_phone: '手机号码无效，请检查后重试',
  template: '短信签名或模板配置有误，请联系管理员',
  rejected: '短信服务拒绝了本次发送',
  bad_answer: '短信服务返回了无法识别的结果',
};

export function failureMessage(kind: SmsFailureKind): string {
  return MESSAGES[kind];
}

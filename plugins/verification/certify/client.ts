import type { CertifyConfig } from './config.js';
import { requestHeaders } from './signing.js';

export type ProviderFailureKind = 'timeout' | 'network' | 'server' | 'auth' | 'not_found' | 'rejected' | 'bad_answer';

export type ProviderOutcome =
  | { ok: true; data: Record<string, unknown> }
  | { ok: false; kind: ProviderFailureKind; httpStatus: number | null; code: string | null; raw: string };

const RAW_LIMIT = 2000;
const AUTH_CODES = new Set(['INVALID_APP_ID', 'INVALID_SIGNATURE', 'MISSING_SIGNATURE', 'TIMESTAMP_EXPIRED', 'NONCE_REPLAYED']);

function asObject(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function classify(status: number, code: string | null): ProviderFailureKind {
  if (status >= 500) return 'server';
  if (status === 401 || (code !== null && AUTH_CODES.has(code))) return 'auth';
  if (status === 404 || code === 'CERTIFY_NOT_FOUND') return 'not_found';
  return 'rejected';
}

/** One signed JSON POST to the provider; never throws. */
export async function callProvider(config: CertifyConfig, path: string, body: Record<string, unknown>, signal: AbortSignal): Promise<ProviderOutcome> {
  const target = new URL(`${config.baseUrl}${path}`);
  const text = JSON.stringify(body);
  let res: Response;
  try {
    res = await fetch(target, {
      method: 'POST',
      headers: requestHeaders(config.appId, config.appSecret, 'POST', `${target.pathname}${target.search}`, text),
      body: text,
      signal,
    });
  } catch (err) {
    const kind = signal.aborted ? 'timeout' : 'network';
    return { ok: false, kind, httpStatus: null, code: null, raw: err instanceof Error ? err.message : String(err) };
  }
  let raw: string;
  try {
    raw = await res.text();
  } catch (err) {
    return { ok: false, kind: signal.aborted ? 'timeout' : 'network', httpStatus: res.status, code: null, raw: String(err) };
  }
  let parsed: Record<string, unknown> | null = null;
  try {
    parsed = asObject(JSON.parse(raw));
  } catch {
    parsed = null;
  }
  const code = typeof parsed?.code === 'string' ? parsed.code : null;
  if (res.ok && code === 'SUCCESS') {
    const data = asObject(parsed?.data);
    if (data) return { ok: true, data };
  }
  const kind = res.ok && code === 'SUCCESS' ? 'bad_answer' : parsed === null && res.status < 500 ? 'bad_answer' : classify(res.status, code);
  return { ok: false, kind, httpStatus: res.status, code, raw: raw.slice(0, RAW_LIMIT) };
}

const MESSAGES: Record<ProviderFailureKind, string> = {
  timeout: '实名认证服务响应超时，请稍后重试',
  network: '无法连接实名认证服务，请稍后重试',
  server: '实名认证服务暂时不可用，请稍后重试',
  auth: '实名认证服务鉴权失败，请检查应用 ID 和应用密钥',
  not_found: '认证记录不存在',
  rejected: '实名认证服务拒绝了本次请求',
  bad_answer: '实名认证服务返回了无法识别的结果',
};

export function failureMessage(kind: ProviderFailureKind): string {
  return MESSAGES[kind];
}

/** Diagnostics for a failed call: the raw answer only, never the request body. */
export function failureDiagnostics(outcome: Extract<ProviderOutcome, { ok: false }>, path: string): Record<string, unknown> {
  return { endpoint: path, kind: outcome.kind, http_status: outcome.httpStatus, provider_code: outcome.code, raw: outcome.raw };
}

import { asInt, asRecord, asString, type UnknownRecord } from '../read.js';
import { encodeForm, type FormInput } from './form.js';
import { UpstreamError } from './upstream-error.js';

export type UpstreamRequest = {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number>;
  form?: FormInput;
  headers?: Record<string, string>;
  /**
   * `bearer` (data plane, the default); `module`: custom module actions, `Authorization: JWT`;
   * `module_page`: custom module pages, the JWT scheme plus the token as `jwt` query parameter.
   */
  auth?: 'bearer' | 'module' | 'module_page';
  /**
   * The call buys, pays or renews: once it may have reached the upstream, a timeout or a
   * broken answer leaves its outcome unknown (`ambiguous`), not merely transient.
   */
  commits?: boolean;
};

export type UpstreamEnvelope = { status: number; msg: string; data: unknown; top: UnknownRecord };

export type TransportSettings = { baseUrl: string; timeoutMs: number; signal: AbortSignal };

const SNIPPET_LENGTH = 300;

export function buildUpstreamUrl(baseUrl: string, path: string, query: Record<string, string | number> = {}): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, String(value));
  return url.toString();
}

function transportFailure(err: unknown, timedOut: boolean): UpstreamError {
  if (timedOut) return new UpstreamError({ reason: 'timeout', kind: 'transient', message: '上游请求超时，请稍后重试' });
  return new UpstreamError({
    reason: 'network_error',
    kind: 'transient',
    message: '无法连接上游服务，请稍后重试',
    upstreamMessage: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
  });
}

function httpFailure(httpStatus: number, body: string): UpstreamError {
  const transient = httpStatus >= 500 || httpStatus === 429 || httpStatus === 408;
  return new UpstreamError({
    reason: transient ? 'upstream_unavailable' : 'upstream_http_error',
    kind: transient ? 'transient' : 'permanent',
    message: transient ? '上游服务异常，请稍后重试' : '上游接口返回了错误页面',
    httpStatus,
    bodySnippet: body.slice(0, SNIPPET_LENGTH),
  });
}

function parseEnvelope(body: string): UpstreamEnvelope | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  const top = asRecord(parsed);
  const status = top ? asInt(top['status']) : null;
  if (!top || status === null) return null;
  return { status, msg: asString(top['msg']) ?? '', data: top['data'], top };
}

/**
 * One HTTP exchange. Any non-200 HTTP answer, any non-JSON body and any body without an
 * integer `status` is a failure; the envelope's own `status` is interpreted by the caller.
 */
export async function sendUpstreamRequest(settings: TransportSettings, request: UpstreamRequest): Promise<UpstreamEnvelope> {
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const signal = AbortSignal.any([settings.signal, timeout]);
  const headers: Record<string, string> = { Accept: 'application/json', ...request.headers };
  let body: string | undefined;
  if (request.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = encodeForm(request.form);
  }
  let status: number;
  let text: string;
  try {
    const response = await fetch(buildUpstreamUrl(settings.baseUrl, request.path, request.query), { method: request.method, headers, body, signal });
    status = response.status;
    text = await response.text();
  } catch (err) {
    throw transportFailure(err, signal.aborted);
  }
  if (status !== 200) throw httpFailure(status, text);
  const envelope = parseEnvelope(text);
  if (!envelope) {
    throw new UpstreamError({ reason: 'invalid_response', kind: 'transient', message: '上游返回了无法解析的内容，请稍后重试', httpStatus: status, bodySnippet: text.slice(0, SNIPPET_LENGTH) });
  }
  return envelope;
}

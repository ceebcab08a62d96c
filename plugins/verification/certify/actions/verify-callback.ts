import { z } from 'zod';
import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import { callbackUrl, type CertifyConfig } from '../config.js';
import { acceptNonce } from '../replay-cache.js';
import { fail, ok } from '../result.js';
import { safeEqual, sign } from '../signing.js';

const ACTION = 'verification.verify_callback';
const WINDOW_SECONDS = 300;

const payloadSchema = z.object({
  headers: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  body: z.string().max(64 * 1024),
  method: z.string().optional(),
  /** Path and query the provider signed; defaults to the configured callback URL's. */
  path: z.string().startsWith('/').optional(),
});

function headerValue(headers: Record<string, string | string[]>, name: string): string {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? (value[0] ?? '') : value;
  }
  return '';
}

function defaultPath(config: CertifyConfig, publicBaseUrl: string): string {
  const url = new URL(callbackUrl(config, publicBaseUrl));
  return `${url.pathname}${url.search}`;
}

function certifyIdOf(body: string): string | null {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const id = (parsed as Record<string, unknown>).certify_id;
    return typeof id === 'string' && id !== '' && id.length <= 128 ? id : null;
  } catch {
    return null;
  }
}

function certifyIdOfQuery(path: string): string | null {
  const query = path.includes('?') ? path.slice(path.indexOf('?') + 1) : '';
  const id = new URLSearchParams(query).get('certify_id');
  return id !== null && id !== '' && id.length <= 128 ? id : null;
}

/**
 * payload { headers, body (raw text), method?, path? } → data { certify_id }. Checks app id,
 * the ±300 s clock window, the HMAC signature and nonce replay. The callback carries no
 * result: the caller must run `verification.query` next.
 */
export async function verifyCallback(input: PluginExecuteInput, config: CertifyConfig): Promise<PluginExecuteResult> {
  const parsed = payloadSchema.safeParse(input.payload);
  if (!parsed.success) return fail(ACTION, '回调内容不完整', { reason: 'payload_invalid' });
  const { headers, body } = parsed.data;
  const appId = headerValue(headers, 'x-app-id');
  const timestamp = headerValue(headers, 'x-timestamp');
  const nonce = headerValue(headers, 'x-nonce');
  const signature = headerValue(headers, 'x-signature');
  if (appId !== config.appId) return fail(ACTION, '回调来源不正确', { reason: 'app_id_mismatch' });
  if (!/^\d{1,12}$/.test(timestamp) || nonce === '' || nonce.length > 64 || signature === '') {
    return fail(ACTION, '回调签名校验失败', { reason: 'signature_headers_missing' });
  }
  const nowMs = Date.now();
  if (Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) > WINDOW_SECONDS) {
    return fail(ACTION, '回调已过期，请以查询结果为准', { reason: 'timestamp_out_of_window' });
  }
  const method = parsed.data.method ?? 'POST';
  const path = parsed.data.path ?? defaultPath(config, input.context.urls.publicBaseUrl);
  const expected = sign(config.appSecret, { method, path, timestamp, nonce, body });
  if (!safeEqual(expected, signature)) return fail(ACTION, '回调签名校验失败', { reason: 'signature_mismatch', path });
  if (!acceptNonce(`${appId}:${nonce}`, nowMs, WINDOW_SECONDS * 2 * 1000)) {
    return fail(ACTION, '回调重复，已忽略', { reason: 'nonce_replayed' });
  }
  // A GET callback names the certify id in the (signed) query string instead of a body.
  const certifyId = body === '' ? certifyIdOfQuery(path) : certifyIdOf(body);
  if (certifyId === null) return fail(ACTION, '回调内容不完整', { reason: 'certify_id_missing', raw: body.slice(0, 500) });
  return ok(ACTION, '回调验签通过', { certify_id: certifyId });
}

import type { ApiAnswer } from './api-handlers.js';
import type { CertifySandboxControl } from './control.js';
import { CALLBACK_MODES } from './state.js';

const ENDPOINTS = ['init', 'url', 'query'] as const;
const MODES = ['http_500', 'business_error'] as const;

/**
 * `GET /__control/counters`, `GET /__control/callbacks`, `GET /__control/records`,
 * `POST /__control/fail-next` `{ endpoint: init|url|query, mode: http_500|business_error, times? }`,
 * `POST /__control/callback-mode` `{ mode: normal|delayed|duplicated|forged|late|none, delay_ms? }`,
 * `POST /__control/outage` `{ on: boolean }`, `POST /__control/send-callback` `{ certify_id, forged?, timestamp_offset_seconds? }`,
 * `POST /__control/replay-callback` `{ index }`, `POST /__control/reset`.
 */
export async function handleControl(control: CertifySandboxControl, method: string, path: string, body: Record<string, unknown>): Promise<ApiAnswer> {
  if (method === 'GET' && path === '/__control/counters') return { status: 200, body: { counters: control.counters() } };
  if (method === 'GET' && path === '/__control/callbacks') return { status: 200, body: { callbacks: control.callbacks() } };
  if (method === 'GET' && path === '/__control/records') return { status: 200, body: { records: control.records() } };
  if (method === 'POST' && path === '/__control/reset') {
    control.reset();
    return { status: 200, body: { ok: true } };
  }
  if (method === 'POST' && path === '/__control/fail-next') {
    const endpoint = ENDPOINTS.find((e) => e === body.endpoint);
    const mode = MODES.find((m) => m === body.mode);
    if (!endpoint || !mode) return { status: 400, body: { error: 'endpoint or mode invalid' } };
    control.failNext(endpoint, mode, typeof body.times === 'number' ? body.times : 1);
    return { status: 200, body: { ok: true } };
  }
  if (method === 'POST' && path === '/__control/callback-mode') {
    const mode = CALLBACK_MODES.find((m) => m === body.mode);
    if (!mode) return { status: 400, body: { error: 'mode invalid' } };
    control.setCallbackMode(mode, typeof body.delay_ms === 'number' ? body.delay_ms : undefined);
    return { status: 200, body: { ok: true } };
  }
  if (method === 'POST' && path === '/__control/outage') {
    control.setOutage(body.on === true);
    return { status: 200, body: { ok: true } };
  }
  if (method === 'POST' && path === '/__control/send-callback' && typeof body.certify_id === 'string') {
    const delivery = await control.sendCallback(body.certify_id, {
      ...(body.forged === true ? { secret: 'forged-secret' } : {}),
      ...(typeof body.timestamp_offset_seconds === 'number' ? { timestampOffsetSeconds: body.timestamp_offset_seconds } : {}),
    });
    return delivery ? { status: 200, body: { delivery } } : { status: 404, body: { error: 'not found' } };
  }
  if (method === 'POST' && path === '/__control/replay-callback' && typeof body.index === 'number') {
    const delivery = await control.replayCallback(body.index);
    return delivery ? { status: 200, body: { delivery } } : { status: 404, body: { error: 'not found' } };
  }
  return { status: 404, body: { error: 'not found' } };
}

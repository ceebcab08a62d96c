import type { ApiAnswer } from './api-handlers.js';
import type { CertifySandboxControl } from './control.js';

const ENDPOINTS = ['init', 'url', 'query'] as const;
const MODES = ['http_500', 'business_error'] as const;

/**
 * `GET /__control/counters`, `GET /__control/callbacks`, `GET /__control/records`,
 * `POST /__control/fail-next` `{ endpoint: init|url|query, mode: http_500|business_error, times? }`,
 * `POST /__control/reset`.
 */
export function handleControl(control: CertifySandboxControl, method: string, path: string, body: Record<string, unknown>): ApiAnswer {
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
  return { status: 404, body: { error: 'not found' } };
}

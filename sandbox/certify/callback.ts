import { signedHeaders } from './signing.js';
import type { CallbackDelivery, CertifyRecord, CertifyState } from './state.js';

const CALLBACK_TIMEOUT_MS = 5000;

/**
 * Sends the signed "look at certify_id" callback once and records the delivery. It carries no
 * result: the receiver must query. Every timer and request is cancelled by stop().
 */
export async function sendCallback(state: CertifyState, record: CertifyRecord): Promise<CallbackDelivery> {
  const body = JSON.stringify({ certify_id: record.certifyId, event: 'certify.finished' });
  const delivery: CallbackDelivery = {
    certify_id: record.certifyId,
    url: record.callbackUrl,
    method: 'POST',
    path: '',
    headers: {},
    body,
    http_status: null,
    error: null,
    at: new Date().toISOString(),
  };
  state.counters.callbacks += 1;
  state.callbacks.push(delivery);
  let target: URL;
  try {
    target = new URL(record.callbackUrl);
  } catch {
    delivery.error = 'invalid callback url';
    return delivery;
  }
  delivery.path = `${target.pathname}${target.search}`;
  delivery.headers = { ...signedHeaders(state.appId, state.appSecret, { method: 'POST', path: delivery.path, body }), 'Content-Type': 'application/json' };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), CALLBACK_TIMEOUT_MS);
  state.inflight.add(controller);
  state.timers.add(timer);
  try {
    const res = await fetch(target, { method: 'POST', headers: delivery.headers, body, signal: controller.signal });
    delivery.http_status = res.status;
    await res.arrayBuffer();
  } catch (err) {
    delivery.error = err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
    state.timers.delete(timer);
    state.inflight.delete(controller);
  }
  return delivery;
}

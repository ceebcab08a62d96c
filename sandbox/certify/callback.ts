import { signedHeaders } from './signing.js';
import type { CallbackDelivery, CertifyRecord, CertifyState } from './state.js';

const CALLBACK_TIMEOUT_MS = 5000;

/**
 * Sends the signed "look at certify_id" callback once and records the delivery. It carries no
 * result: the receiver must query. Every timer and request is cancelled by stop().
 */
export type CallbackOptions = {
  /** Sign with this secret instead of the app secret (a forged callback). */
  secret?: string;
  /** Shift the signed timestamp (negative: older than now). */
  timestampOffsetSeconds?: number;
};

export async function sendCallback(state: CertifyState, record: CertifyRecord, options: CallbackOptions = {}): Promise<CallbackDelivery> {
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
  const nowSeconds = Math.floor(Date.now() / 1000) + (options.timestampOffsetSeconds ?? 0);
  delivery.headers = {
    ...signedHeaders(state.appId, options.secret ?? state.appSecret, { method: 'POST', path: delivery.path, body }, { nowSeconds }),
    'Content-Type': 'application/json',
  };
  return deliver(state, delivery, target);
}

/** Sends a recorded delivery again, byte for byte (same headers, nonce and signature): a replay. */
export async function replayCallback(state: CertifyState, original: CallbackDelivery): Promise<CallbackDelivery> {
  const delivery: CallbackDelivery = { ...original, headers: { ...original.headers }, http_status: null, error: null, at: new Date().toISOString() };
  state.counters.callbacks += 1;
  state.callbacks.push(delivery);
  let target: URL;
  try {
    target = new URL(delivery.url);
  } catch {
    delivery.error = 'invalid callback url';
    return delivery;
  }
  return deliver(state, delivery, target);
}

/**
 * Delivers a finished session's callback the way the current callback mode says (see
 * `CallbackMode`); answers the deliveries made before returning (none when delayed or off).
 */
export async function deliverByMode(state: CertifyState, record: CertifyRecord): Promise<CallbackDelivery[]> {
  switch (state.callbackMode) {
    case 'none':
      return [];
    case 'delayed': {
      const timer = setTimeout(() => {
        state.timers.delete(timer);
        void sendCallback(state, record);
      }, state.callbackDelayMs);
      state.timers.add(timer);
      return [];
    }
    case 'duplicated':
      return [await sendCallback(state, record), await sendCallback(state, record)];
    case 'forged':
      return [await sendCallback(state, record, { secret: `${state.appSecret}-forged` })];
    case 'late':
      return [await sendCallback(state, record, { timestampOffsetSeconds: -3600 })];
    default:
      return [await sendCallback(state, record)];
  }
}

async function deliver(state: CertifyState, delivery: CallbackDelivery, target: URL): Promise<CallbackDelivery> {
  const body = delivery.body;
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

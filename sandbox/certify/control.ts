import { replayCallback, sendCallback, type CallbackOptions } from './callback.js';
import type { CallbackDelivery, CallbackMode, CertifyCounters, CertifyEndpoint, CertifyFailureMode, CertifyState, CertifyStatus } from './state.js';
import { emptyCounters } from './state.js';

export type CertifyRecordView = {
  certify_id: string;
  outer_order_no: string;
  kind: string;
  masked_name: string;
  masked_id_number: string;
  status: CertifyStatus;
  fail_code: string | null;
};

export type CertifySandboxControl = {
  /** The next `times` calls to the endpoint fail (HTTP 500 or a business rejection). */
  failNext(endpoint: CertifyEndpoint, mode: CertifyFailureMode, times?: number): void;
  counters(): CertifyCounters;
  callbacks(): CallbackDelivery[];
  records(): CertifyRecordView[];
  /** How the next finished sessions call back (see `CallbackMode`); `delayMs` for `delayed`. */
  setCallbackMode(mode: CallbackMode, delayMs?: number): void;
  /** Provider outage on or off: the API answers HTTP 503 meanwhile. */
  setOutage(on: boolean): void;
  /** Sends a (validly signed, unless options say otherwise) callback for a session now: a late or extra callback. */
  sendCallback(certifyId: string, options?: CallbackOptions): Promise<CallbackDelivery | null>;
  /** Sends the n-th recorded delivery again byte for byte (a replay with the same nonce). */
  replayCallback(index: number): Promise<CallbackDelivery | null>;
  reset(): void;
};

export function createControl(state: CertifyState): CertifySandboxControl {
  return {
    failNext(endpoint, mode, times = 1) {
      state.failures.set(endpoint, { mode, remaining: Math.max(1, times) });
    },
    counters: () => ({ ...state.counters }),
    callbacks: () => state.callbacks.map((c) => ({ ...c, headers: { ...c.headers } })),
    records: () =>
      [...state.records.values()].map((r) => ({
        certify_id: r.certifyId,
        outer_order_no: r.outerOrderNo,
        kind: r.kind,
        masked_name: r.maskedName,
        masked_id_number: r.maskedIdNumber,
        status: r.status,
        fail_code: r.failCode,
      })),
    setCallbackMode(mode, delayMs) {
      state.callbackMode = mode;
      if (delayMs !== undefined) state.callbackDelayMs = Math.max(0, delayMs);
    },
    setOutage(on) {
      state.outage = on;
    },
    async sendCallback(certifyId, options = {}) {
      const record = state.records.get(certifyId);
      return record ? sendCallback(state, record, options) : null;
    },
    async replayCallback(index) {
      const original = state.callbacks[index];
      return original ? replayCallback(state, original) : null;
    },
    reset() {
      state.callbackMode = 'normal';
      state.outage = false;
      state.records.clear();
      state.byOrder.clear();
      state.callbacks.length = 0;
      state.failures.clear();
      state.nonces.clear();
      state.counters = emptyCounters();
    },
  };
}

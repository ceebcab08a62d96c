import type { CallbackDelivery, CertifyCounters, CertifyEndpoint, CertifyFailureMode, CertifyState, CertifyStatus } from './state.js';
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
    reset() {
      state.records.clear();
      state.byOrder.clear();
      state.callbacks.length = 0;
      state.failures.clear();
      state.nonces.clear();
      state.counters = emptyCounters();
    },
  };
}

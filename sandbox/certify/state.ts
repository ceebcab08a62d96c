import { NonceCache } from '../lib/nonce-cache.js';
import { CLOCK_WINDOW_SECONDS } from './signing.js';

export type CertifyKind = 'face' | 'cert_photo';
export type CertifyStatus = 'INIT' | 'PROCESSING' | 'PASSED' | 'FAILED';
export type CertifyEndpoint = 'init' | 'url' | 'query';
export type CertifyFailureMode = 'http_500' | 'business_error';
/**
 * How the callback of a finished session is delivered: `normal` once at once; `delayed` once
 * after `callbackDelayMs`; `duplicated` twice (each freshly signed, like a provider's retry);
 * `forged` once, signed with a wrong secret; `late` once, signed with a timestamp outside the
 * clock window (a retry held in a queue too long); `none` never.
 */
export const CALLBACK_MODES = ['normal', 'delayed', 'duplicated', 'forged', 'late', 'none'] as const;
export type CallbackMode = (typeof CALLBACK_MODES)[number];

export type CertifyRecord = {
  certifyId: string;
  outerOrderNo: string;
  kind: CertifyKind;
  /** Only masked values are kept. */
  maskedName: string;
  maskedIdNumber: string;
  callbackUrl: string;
  status: CertifyStatus;
  failCode: string | null;
  createdAt: string;
};

export type CallbackDelivery = {
  certify_id: string;
  url: string;
  method: 'POST';
  path: string;
  headers: Record<string, string>;
  body: string;
  http_status: number | null;
  error: string | null;
  at: string;
};

export type CertifyCounters = {
  init: number;
  url: number;
  query: number;
  verify: number;
  callbacks: number;
  rejected: number;
};

export type CertifyState = {
  appId: string;
  appSecret: string;
  baseUrl: string;
  urlTtlSeconds: number;
  nonces: NonceCache;
  records: Map<string, CertifyRecord>;
  byOrder: Map<string, string>;
  callbacks: CallbackDelivery[];
  counters: CertifyCounters;
  failures: Map<CertifyEndpoint, { mode: CertifyFailureMode; remaining: number }>;
  callbackMode: CallbackMode;
  callbackDelayMs: number;
  /** Provider outage: every API endpoint answers HTTP 503 until switched off. */
  outage: boolean;
  inflight: Set<AbortController>;
  timers: Set<NodeJS.Timeout>;
};

export function emptyCounters(): CertifyCounters {
  return { init: 0, url: 0, query: 0, verify: 0, callbacks: 0, rejected: 0 };
}

export function createState(options: { appId: string; appSecret: string; urlTtlSeconds: number }): CertifyState {
  return {
    ...options,
    baseUrl: '',
    nonces: new NonceCache(CLOCK_WINDOW_SECONDS * 2 * 1000),
    records: new Map(),
    byOrder: new Map(),
    callbacks: [],
    counters: emptyCounters(),
    failures: new Map(),
    callbackMode: 'normal',
    callbackDelayMs: 1000,
    outage: false,
    inflight: new Set(),
    timers: new Set(),
  };
}

/** Consumes one armed failure for the endpoint, if any. */
export function takeFailure(state: CertifyState, endpoint: CertifyEndpoint): CertifyFailureMode | null {
  const armed = state.failures.get(endpoint);
  if (!armed) return null;
  armed.remaining -= 1;
  if (armed.remaining <= 0) state.failures.delete(endpoint);
  return armed.mode;
}

export function mask(value: string): string {
  if (value.length <= 2) return '*'.repeat(value.length);
  return `${value.slice(0, 1)}${'*'.repeat(value.length - 2)}${value.slice(-1)}`;
}

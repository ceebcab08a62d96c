import { NonceCache } from '../lib/nonce-cache.js';

export type SmsFailureMode = 'none' | 'invalid_phone' | 'rate_limited' | 'http_500';

export type StoredSms = {
  biz_id: string;
  phone: string;
  sign_name: string;
  template_code: string;
  params: Record<string, string>;
  access_key_id: string;
  received_at: string;
};

export type SmsCounters = { requests: number; accepted: number; rejected: number };

export type SmsState = {
  accessKeys: Record<string, string>;
  signNames: string[] | null;
  templates: string[] | null;
  nonces: NonceCache;
  messages: StoredSms[];
  counters: SmsCounters;
  failure: { mode: SmsFailureMode; remaining: number | null };
};

export const CLOCK_WINDOW_SECONDS = 300;

export function createState(options: { accessKeys: Record<string, string>; signNames: string[] | null; templates: string[] | null }): SmsState {
  return {
    ...options,
    nonces: new NonceCache(CLOCK_WINDOW_SECONDS * 2 * 1000),
    messages: [],
    counters: { requests: 0, accepted: 0, rejected: 0 },
    failure: { mode: 'none', remaining: null },
  };
}

/** The armed failure for this request (consuming one use when limited). */
export function takeFailure(state: SmsState): SmsFailureMode {
  const { mode, remaining } = state.failure;
  if (mode === 'none') return 'none';
  if (remaining !== null) {
    if (remaining <= 1) state.failure = { mode: 'none', remaining: null };
    else state.failure = { mode, remaining: remaining - 1 };
  }
  return mode;
}

import type { SmsCounters, SmsFailureMode, SmsState, StoredSms } from './state.js';

export type SmsSandboxControl = {
  /** Arms a failure for every following send, or for the next `times` sends. */
  setFailure(mode: SmsFailureMode, times?: number): void;
  messages(): StoredSms[];
  clearMessages(): void;
  counters(): SmsCounters;
  reset(): void;
};

export function createControl(state: SmsState): SmsSandboxControl {
  return {
    setFailure(mode, times) {
      state.failure = { mode, remaining: mode === 'none' || times === undefined ? null : Math.max(1, times) };
    },
    messages: () => state.messages.map((m) => ({ ...m, params: { ...m.params } })),
    clearMessages() {
      state.messages.length = 0;
    },
    counters: () => ({ ...state.counters }),
    reset() {
      state.messages.length = 0;
      state.counters = { requests: 0, accepted: 0, rejected: 0 };
      state.failure = { mode: 'none', remaining: null };
      state.nonces.clear();
    },
  };
}

import { emptyCounters, type MailCounters, type MailState, type StoredMail } from './state.js';

export type MailSandboxControl = {
  /** Refuse AUTH for these users (all users when omitted) until `allowAuth`. */
  rejectAuth(users?: string[]): void;
  allowAuth(): void;
  /** Reject the next `count` messages at DATA with 554. */
  rejectNextMessage(count?: number): void;
  messages(): StoredMail[];
  clearMessages(): void;
  counters(): MailCounters;
  reset(): void;
};

export function createControl(state: MailState): MailSandboxControl {
  return {
    rejectAuth(users) {
      for (const user of users ?? ['*']) state.rejectAuth.add(user);
    },
    allowAuth() {
      state.rejectAuth.clear();
    },
    rejectNextMessage(count = 1) {
      state.rejectMessages += Math.max(1, count);
    },
    messages: () => state.messages.map((m) => ({ ...m, to: [...m.to] })),
    clearMessages() {
      state.messages.length = 0;
    },
    counters: () => ({ ...state.counters }),
    reset() {
      state.messages.length = 0;
      state.rejectAuth.clear();
      state.rejectMessages = 0;
      state.counters = emptyCounters();
    },
  };
}

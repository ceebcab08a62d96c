export type StoredMail = {
  id: number;
  from: string;
  envelope_from: string;
  to: string[];
  subject: string;
  text: string | null;
  html: string | null;
  message_id: string | null;
  account_user: string | null;
  received_at: string;
};

export type MailCounters = { auth_ok: number; auth_failed: number; accepted: number; rejected: number };

export type MailState = {
  users: Record<string, string>;
  messages: StoredMail[];
  nextId: number;
  counters: MailCounters;
  /** Users whose AUTH is refused; `'*'` refuses everyone. */
  rejectAuth: Set<string>;
  rejectMessages: number;
};

export function emptyCounters(): MailCounters {
  return { auth_ok: 0, auth_failed: 0, accepted: 0, rejected: 0 };
}

export function createState(users: Record<string, string>): MailState {
  return { users, messages: [], nextId: 1, counters: emptyCounters(), rejectAuth: new Set(), rejectMessages: 0 };
}

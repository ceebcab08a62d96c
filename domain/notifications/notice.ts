import type { NotificationEntityType, NotificationKind } from '../../db/models/notification-log.js';

/** Who gets a notice: the user's own e-mail and phone (either may be missing). */
export type Recipient = { id: number; email: string | null; phone: string | null };

/**
 * One notice to a user, by mail and by SMS. `(kind, entity, occasion)` identifies it: each
 * channel sends it at most once (the notification log's UNIQUE key).
 */
export type Notice = {
  kind: NotificationKind;
  entityType: NotificationEntityType;
  entityId: number;
  /** Distinguishes repeated notices of one entity: a due date and threshold, a suspension time. At most 64 characters. */
  occasion: string;
  user: Recipient;
  subject: string;
  text: string;
  /** The SMS template scene (configured in the SMS plugin) and its parameters. */
  sms: { scene: string; params: Record<string, string> };
};

/** What happened on one channel. */
export type ChannelOutcome = 'sent' | 'failed' | 'unknown' | 'already' | 'no_recipient' | 'unavailable';

export type NoticeOutcome = { mail: ChannelOutcome; sms: ChannelOutcome };

/** Counts per channel and outcome of many notices (only outcomes that happened), for task summaries. */
export type NoticeTally = Record<string, number>;

export function emptyTally(): NoticeTally {
  return { notices: 0 };
}

export function addToTally(tally: NoticeTally, outcome: NoticeOutcome): void {
  tally['notices'] = (tally['notices'] ?? 0) + 1;
  for (const key of [`mail_${outcome.mail}`, `sms_${outcome.sms}`]) tally[key] = (tally[key] ?? 0) + 1;
}

import type { DomainDeps } from '../deps.js';

/**
 * Ticket rules. Defaults until the settings kernel lands (`domain/settings/groups/ticket.ts`
 * then backs this accessor; callers keep calling it).
 */
export type TicketPolicy = {
  /** A ticket waiting on the customer (status answered) this many days is closed; 0 disables auto-close. */
  autoCloseDays: number;
  /** The reminder goes out this many hours before the close (and the close waits at least this long after it). */
  reminderHours: number;
  /** Replies and new tickets one user may post per window. */
  replyLimit: number;
  replyWindowMinutes: number;
};

export const TICKET_POLICY_DEFAULTS: TicketPolicy = { autoCloseDays: 7, reminderHours: 24, replyLimit: 10, replyWindowMinutes: 10 };

export async function ticketPolicy(_deps: DomainDeps): Promise<TicketPolicy> {
  return TICKET_POLICY_DEFAULTS;
}

/** Upload limits (settings group `upload` once the kernel lands). */
export type UploadPolicy = { imageMaxBytes: number; attachmentMaxBytes: number };

export const UPLOAD_POLICY_DEFAULTS: UploadPolicy = { imageMaxBytes: 5 * 1024 * 1024, attachmentMaxBytes: 10 * 1024 * 1024 };

/** The hard ceiling of any upload request body, whatever the settings say (read before parsing). */
export const UPLOAD_BODY_CEILING_BYTES = 20 * 1024 * 1024;

export async function uploadPolicy(_deps: DomainDeps): Promise<UploadPolicy> {
  return UPLOAD_POLICY_DEFAULTS;
}

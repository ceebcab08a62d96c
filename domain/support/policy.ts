import type { DomainDeps } from '../deps.js';
import { ticketSettings } from '../settings/groups/ticket.js';
import { uploadSettings } from '../settings/groups/upload.js';
import { readSettings } from '../settings/settings.js';

/** Ticket rules, from the `ticket` settings group (admin settings page). */
export type TicketPolicy = {
  /** A ticket waiting on the customer (status answered) this many days is closed; 0 disables auto-close. */
  autoCloseDays: number;
  /** The reminder goes out this many hours before the close (and the close waits at least this long after it). */
  reminderHours: number;
  /** Replies and new tickets one user may post per window. */
  replyLimit: number;
  replyWindowMinutes: number;
};

export async function ticketPolicy(deps: DomainDeps): Promise<TicketPolicy> {
  const s = await readSettings(deps, ticketSettings);
  return { autoCloseDays: s.auto_close_days, reminderHours: s.reminder_hours, replyLimit: s.reply_limit, replyWindowMinutes: s.reply_window_minutes };
}

/** Upload limits in bytes, from the `upload` settings group. */
export type UploadPolicy = { imageMaxBytes: number; attachmentMaxBytes: number };

/** The hard ceiling of any upload request body, whatever the settings say (refused before it is read). */
export const UPLOAD_BODY_CEILING_BYTES = 21 * 1024 * 1024;

export async function uploadPolicy(deps: DomainDeps): Promise<UploadPolicy> {
  const s = await readSettings(deps, uploadSettings);
  return { imageMaxBytes: s.image_max_mb * 1024 * 1024, attachmentMaxBytes: s.attachment_max_mb * 1024 * 1024 };
}

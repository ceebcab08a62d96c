import { sqlRows, statement } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { ticketPolicy } from './policy.js';
import { sendWaitingNotices } from './ticket-notices.js';
import { throwIfCancelled } from '../../lib/cancellation.js';

/** Tickets one statement reminds or closes; a larger backlog takes several statements of one run. */
export const AUTO_CLOSE_BATCH = 500;

/**
 * The reminder: one guarded update per wait (`reminded_at IS NULL`), of at most a batch of the
 * tickets due, oldest wait first, found through `tickets_status_idx` (status, last_reply_at):
 * only tickets answered before the cut-off are read, never the closed history. Rows a reply holds
 * locked are skipped (the next run sees them with the wait started over, or reminds them).
 */
const REMIND = statement(
  `WITH due AS (
     SELECT id FROM tickets WHERE status = 'answered' AND reminded_at IS NULL AND last_reply_at <= now() - make_interval(hours => $1)
      ORDER BY last_reply_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
   )
   UPDATE tickets t SET reminded_at = now(), updated_at = now() FROM due
    WHERE t.id = due.id AND t.status = 'answered' AND t.reminded_at IS NULL RETURNING t.id`,
);

/** The close: guarded on the status and the reminder, a batch at a time, through the same index. */
const CLOSE = statement(
  `WITH due AS (
     SELECT id FROM tickets WHERE status = 'answered' AND reminded_at IS NOT NULL AND last_reply_at <= now() - make_interval(days => $1)
        AND reminded_at <= now() - make_interval(hours => $2)
      ORDER BY last_reply_at, id LIMIT $3 FOR UPDATE SKIP LOCKED
   )
   UPDATE tickets t SET status = 'closed', closed_at = now(), closed_by = 'auto', updated_at = now() FROM due
    WHERE t.id = due.id AND t.status = 'answered' AND t.reminded_at IS NOT NULL RETURNING t.id`,
);

/**
 * Runs a guarded batch update until a batch comes back short. Each batch's rows leave the
 * statement's condition (the guard is the condition), so the next batch starts where the last
 * ended without a cursor, and the loop ends: its work is the rows due, not the table.
 */
async function inBatches(deps: DomainDeps, sql: typeof REMIND, bind: unknown[]): Promise<number[]> {
  const ids: number[] = [];
  for (;;) {
    throwIfCancelled();
    const rows = await sqlRows<{ id: number }>(deps, sql, [...bind, AUTO_CLOSE_BATCH]);
    ids.push(...rows.map((r) => r.id));
    if (rows.length < AUTO_CLOSE_BATCH) return ids;
  }
}

/**
 * Tickets waiting on the customer (`answered`): a reminder once `reminderHours` before the
 * close (one guarded update per wait: `reminded_at IS NULL`), then the close once the ticket
 * waited `autoCloseDays` and at least `reminderHours` since the reminder (guarded on the
 * status). Each notice goes out at most once per channel (notification log); a customer or
 * staff reply starts the wait over. Its cost follows the tickets due (docs/scheduling.md).
 */
export async function autoCloseTickets(deps: DomainDeps, run: { taskRunId: number | null }): Promise<Record<string, unknown>> {
  const policy = await ticketPolicy(deps);
  if (policy.autoCloseDays <= 0) return { disabled: true };
  const remindAfterHours = Math.max(0, policy.autoCloseDays * 24 - policy.reminderHours);
  const reminded = await inBatches(deps, REMIND, [remindAfterHours]);
  const closed = await inBatches(deps, CLOSE, [policy.autoCloseDays, policy.reminderHours]);
  const notices = await sendWaitingNotices(deps, { ...policy, taskRunId: run.taskRunId });
  return {
    reminded: reminded.length,
    closed: closed.length,
    reminded_ids: reminded.slice(0, 20),
    closed_ids: closed.slice(0, 20),
    reminder_notices: notices.reminders,
    closed_notices: notices.closed,
  };
}

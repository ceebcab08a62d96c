import { sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { ticketPolicy } from './policy.js';
import { sendWaitingNotices } from './ticket-notices.js';

/**
 * Tickets waiting on the customer (`answered`): a reminder once `reminderHours` before the
 * close (one guarded update per wait: `reminded_at IS NULL`), then the close once the ticket
 * waited `autoCloseDays` and at least `reminderHours` since the reminder (guarded on the
 * status). Each notice goes out at most once per channel (notification log); a customer or
 * staff reply starts the wait over.
 */
export async function autoCloseTickets(deps: DomainDeps, run: { taskRunId: number | null }): Promise<Record<string, unknown>> {
  const policy = await ticketPolicy(deps);
  if (policy.autoCloseDays <= 0) return { disabled: true };
  const remindAfterHours = Math.max(0, policy.autoCloseDays * 24 - policy.reminderHours);
  const reminded = await sqlRows<{ id: number }>(
    deps,
    `UPDATE tickets SET reminded_at = now(), updated_at = now()
      WHERE status = 'answered' AND reminded_at IS NULL AND last_reply_at <= now() - make_interval(hours => $1) RETURNING id`,
    [remindAfterHours],
  );
  const closed = await sqlRows<{ id: number }>(
    deps,
    `UPDATE tickets SET status = 'closed', closed_at = now(), closed_by = 'auto', updated_at = now()
      WHERE status = 'answered' AND reminded_at IS NOT NULL AND last_reply_at <= now() - make_interval(days => $1)
        AND reminded_at <= now() - make_interval(hours => $2) RETURNING id`,
    [policy.autoCloseDays, policy.reminderHours],
  );
  const notices = await sendWaitingNotices(deps, { ...policy, taskRunId: run.taskRunId });
  return {
    reminded: reminded.length,
    closed: closed.length,
    reminded_ids: reminded.slice(0, 20).map((r) => r.id),
    closed_ids: closed.slice(0, 20).map((r) => r.id),
    reminder_notices: notices.reminders,
    closed_notices: notices.closed,
  };
}

import { RENEWAL_PAID_NOT_APPLIED } from '../lifecycle/renewal-state.js';
import { sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import type { TaskRunContext } from '../tasks/types.js';
import { addToTally, emptyTally, type NoticeTally } from './notice.js';
import { addDays, type NoticeService, renewalDueNotice, serviceOverdueNotice } from './notice-texts.js';
import { availableChannels, sendNotice } from './send-notice.js';

type DueRow = NoticeService & {
  user_id: number;
  email: string | null;
  phone: string | null;
  balance: string;
  invoice_id: number | null;
  invoice_no: string | null;
  invoice_subject: string | null;
  invoice_amount: string | null;
};

const SERVICE_COLUMNS = `s.id, s.user_id, s.product_name, s.hostname, s.ip, s.billing_period, s.price, s.auto_renew, s.next_due_at,
  u.email, u.phone`;

/**
 * The threshold a service has reached: the smallest reminder day not below the time left
 * (7, 3, 1 by default). One reminder per threshold and due date; a threshold passed while no
 * run happened is not made up for (the next one is sent instead).
 */
export function reminderThreshold(reminderDays: readonly number[], dueAt: Date, now: Date): number | null {
  const left = (dueAt.getTime() - now.getTime()) / 86_400_000;
  if (left <= 0) return null;
  return reminderDays.find((d) => left <= d) ?? null;
}

/**
 * Renewal reminders (active services due within the largest reminder day) and overdue notices
 * (active services past their due date, not yet suspended), by mail and SMS, each once.
 * Services whose paid renewal is still being applied are left alone.
 */
export async function sendDueReminders(deps: DomainDeps, run: Pick<TaskRunContext, 'taskRunId'>, now = new Date()) {
  const { reminderDays, suspendAfterDays } = deps.config.lifecycle;
  const siteName = deps.config.siteName;
  const channels = await availableChannels(deps);
  const context = { taskRunId: run.taskRunId };

  const renewal: NoticeTally = emptyTally();
  const due = await sqlRows<DueRow>(
    deps,
    `SELECT ${SERVICE_COLUMNS}, COALESCE(a.balance, 0)::text AS balance,
            ri.id AS invoice_id, ri.invoice_no, ri.subject AS invoice_subject, ri.amount AS invoice_amount
       FROM services s JOIN users u ON u.id = s.user_id
       LEFT JOIN user_accounts a ON a.user_id = s.user_id
       LEFT JOIN LATERAL (
         SELECT id, invoice_no, subject, amount FROM invoices
          WHERE service_id = s.id AND type = 'renew' AND status = 'unpaid' ORDER BY id LIMIT 1
       ) ri ON true
      WHERE s.status = 'active' AND s.next_due_at > $1 AND s.next_due_at <= $1::timestamptz + make_interval(days => $2)
        AND NOT ${RENEWAL_PAID_NOT_APPLIED}
      ORDER BY s.id`,
    [now, Math.max(...reminderDays)],
  );
  for (const row of due) {
    const days = reminderThreshold(reminderDays, row.next_due_at, now);
    if (days === null) continue;
    const invoice =
      row.invoice_id !== null
        ? { id: row.invoice_id, invoice_no: row.invoice_no ?? '', subject: row.invoice_subject ?? '', amount: row.invoice_amount ?? row.price, type: 'renew' }
        : null;
    const user = { id: row.user_id, email: row.email, phone: row.phone };
    addToTally(renewal, await sendNotice(deps, renewalDueNotice(siteName, { service: row, user, days, invoice, balance: row.balance }), channels, context));
  }

  const overdue: NoticeTally = emptyTally();
  const late = await sqlRows<DueRow>(
    deps,
    `SELECT ${SERVICE_COLUMNS} FROM services s JOIN users u ON u.id = s.user_id
      WHERE s.status = 'active' AND s.next_due_at <= $1 AND NOT ${RENEWAL_PAID_NOT_APPLIED}
      ORDER BY s.id`,
    [now],
  );
  for (const row of late) {
    const user = { id: row.user_id, email: row.email, phone: row.phone };
    const notice = serviceOverdueNotice(siteName, { service: row, user, suspendAt: addDays(row.next_due_at, suspendAfterDays) });
    addToTally(overdue, await sendNotice(deps, notice, channels, context));
  }
  return { mail_available: channels.mail, sms_available: channels.sms, renewal_due: renewal, service_overdue: overdue };
}

import { sqlOne, sqlRows, statement } from '../../db/sql.js';
import { formatDateTime } from '../../lib/time.js';
import type { DomainDeps } from '../deps.js';
import { siteSettings } from '../settings/groups/site.js';
import { readSettings } from '../settings/settings.js';
import { addToTally, emptyTally, type Notice, type NoticeTally, type Recipient } from '../notifications/notice.js';
import { availableChannels, type ChannelAvailability, pendingNotices, sendNotice } from '../notifications/send-notice.js';
import { throwIfCancelled } from '../../lib/cancellation.js';

/**
 * Ticket notices, by mail (and SMS where a plugin is bound), each at most once per channel
 * through the notification log (`sendNotice`). None is sent from a request: a reply promises
 * its notice in an outbox row (`ticket_notice`), which the relay performs here.
 *
 * Customer replies go to the department's notification address (admins have no contact
 * address of their own on this platform); the mail names the assignee. Texts carry the ticket
 * number and subject, never the reply's body.
 */

type ReplyContext = {
  reply_id: number;
  author_type: 'user' | 'staff';
  is_internal: boolean;
  ticket_id: number;
  subject: string;
  user_id: number;
  email: string | null;
  phone: string | null;
  department_name: string;
  notify_email: string | null;
  assignee_name: string | null;
};

function mailText(siteName: string, lines: string[]): string {
  return ['您好：', '', ...lines, '', '此邮件由系统自动发送，请勿直接回复。', siteName].join('\n');
}

function subjectLine(subject: string): string {
  return subject.length > 40 ? `${subject.slice(0, 40)}…` : subject;
}

function staffReplyNotice(siteName: string, row: ReplyContext): Notice {
  return {
    kind: 'ticket_staff_reply',
    entityType: 'ticket',
    entityId: row.ticket_id,
    occasion: `reply:${row.reply_id}`,
    user: { id: row.user_id, email: row.email, phone: row.phone },
    subject: `【${siteName}】您的工单有新回复`,
    text: mailText(siteName, [`您的工单 #${row.ticket_id}「${subjectLine(row.subject)}」有新的客服回复，请登录用户中心查看。`]),
    sms: { scene: 'ticket_reply', params: { ticket_id: String(row.ticket_id) } },
  };
}

function customerReplyNotice(siteName: string, row: ReplyContext): Notice {
  return {
    kind: 'ticket_customer_reply',
    entityType: 'ticket',
    entityId: row.ticket_id,
    occasion: `reply:${row.reply_id}`,
    // The notice concerns the customer (user_id in the log); it is addressed to the department's mailbox.
    user: { id: row.user_id, email: row.notify_email, phone: null },
    subject: `【${siteName}】工单 #${row.ticket_id} 有客户回复`,
    text: mailText(siteName, [
      `工单 #${row.ticket_id}「${subjectLine(row.subject)}」（部门：${row.department_name}，处理人：${row.assignee_name ?? '未分配'}）有新的客户回复，请登录管理后台处理。`,
    ]),
    sms: { scene: 'ticket_customer_reply', params: { ticket_id: String(row.ticket_id) } },
  };
}

/** Performs a `ticket_notice` intent: the notice of one reply (staff public reply → customer; customer reply → department). */
export async function sendTicketReplyNotice(deps: DomainDeps, replyId: number, channels?: ChannelAvailability): Promise<string | null> {
  const row = await sqlOne<ReplyContext>(
    deps,
    `SELECT r.id::int AS reply_id, r.author_type, r.is_internal, t.id AS ticket_id, t.subject, t.user_id, u.email, u.phone,
            d.name AS department_name, d.notify_email, a.username AS assignee_name
       FROM ticket_replies r JOIN tickets t ON t.id = r.ticket_id JOIN users u ON u.id = t.user_id
       JOIN ticket_departments d ON d.id = t.department_id LEFT JOIN admins a ON a.id = t.assignee_admin_id
      WHERE r.id = $1`,
    [replyId],
  );
  if (!row) return 'reply not found';
  if (row.is_internal) return 'internal note';
  const { name: siteName } = await readSettings(deps, siteSettings);
  const notice = row.author_type === 'staff' ? staffReplyNotice(siteName, row) : customerReplyNotice(siteName, row);
  const outcome = await sendNotice(deps, notice, channels ?? (await availableChannels(deps)), { taskRunId: null });
  // A plugin that answered "not sent" is tried again through the relay's retry (the log allows MAX_NOTICE_ATTEMPTS in all).
  if (outcome.mail === 'failed' || outcome.sms === 'failed') throw new Error(`ticket notice not sent (mail ${outcome.mail}, sms ${outcome.sms}); retried`);
  return `mail ${outcome.mail}, sms ${outcome.sms}`;
}

type WaitingRow = { id: number; subject: string; user_id: number; email: string | null; phone: string | null; at: Date };

export function closeReminderNotice(siteName: string, row: WaitingRow, closeAt: Date): Notice {
  const user: Recipient = { id: row.user_id, email: row.email, phone: row.phone };
  return {
    kind: 'ticket_close_reminder',
    entityType: 'ticket',
    entityId: row.id,
    occasion: `remind:${row.at.toISOString()}`,
    user,
    subject: `【${siteName}】工单即将自动关闭`,
    text: mailText(siteName, [
      `您的工单 #${row.id}「${subjectLine(row.subject)}」已有客服回复，等待您的答复。`,
      `若在 ${(formatDateTime(closeAt) ?? '').slice(0, 16)} 前仍未回复，工单将自动关闭。问题已解决可忽略本邮件。`,
    ]),
    sms: { scene: 'ticket_close_reminder', params: { ticket_id: String(row.id) } },
  };
}

export function autoClosedNotice(siteName: string, row: WaitingRow): Notice {
  return {
    kind: 'ticket_auto_closed',
    entityType: 'ticket',
    entityId: row.id,
    occasion: `closed:${row.at.toISOString()}`,
    user: { id: row.user_id, email: row.email, phone: row.phone },
    subject: `【${siteName}】工单已自动关闭`,
    text: mailText(siteName, [`您的工单 #${row.id}「${subjectLine(row.subject)}」因长时间未收到您的回复，已自动关闭。如仍需帮助，请提交新工单。`]),
    sms: { scene: 'ticket_auto_closed', params: { ticket_id: String(row.id) } },
  };
}

/** Tickets read per statement when the recent reminders and closes are offered again. */
const NOTICE_BATCH = 500;

/**
 * The tickets reminded (or auto-closed) within the last 3 days, a keyset batch at a time (id
 * greater than the last one seen): through the partial indexes `tickets_reminded_idx` and
 * `tickets_auto_closed_idx` (migration 0035), never the closed history.
 */
const RECENT_REMINDED = statement(
  `SELECT t.id, t.subject, t.user_id, u.email, u.phone, t.reminded_at AS at, t.last_reply_at FROM tickets t JOIN users u ON u.id = t.user_id
    WHERE t.status = 'answered' AND t.reminded_at IS NOT NULL AND t.reminded_at > now() - interval '3 days' AND t.id > $1
    ORDER BY t.id LIMIT $2`,
);
const RECENT_AUTO_CLOSED = statement(
  `SELECT t.id, t.subject, t.user_id, u.email, u.phone, t.closed_at AS at, t.last_reply_at FROM tickets t JOIN users u ON u.id = t.user_id
    WHERE t.closed_by = 'auto' AND t.closed_at > now() - interval '3 days' AND t.id > $1
    ORDER BY t.id LIMIT $2`,
);

/**
 * Recent reminders and auto-closes whose notices may still be due: every such ticket, in keyset
 * batches; of each batch only the notices the log would still claim (`pendingNotices`) are
 * offered, so a run pays for the notices due, and a notice already sent costs no claim.
 */
export async function sendWaitingNotices(
  deps: DomainDeps,
  input: { autoCloseDays: number; reminderHours: number; taskRunId: number | null },
): Promise<{ reminders: NoticeTally; closed: NoticeTally }> {
  const channels = await availableChannels(deps);
  const { name: siteName } = await readSettings(deps, siteSettings);
  const offer = async (sql: typeof RECENT_REMINDED, notice: (row: WaitingRow & { last_reply_at: Date }) => Notice): Promise<NoticeTally> => {
    const tally = emptyTally();
    if (!channels.mail && !channels.sms) return tally;
    for (let last = 0; ; ) {
      throwIfCancelled();
      const rows = await sqlRows<WaitingRow & { last_reply_at: Date }>(deps, sql, [last, NOTICE_BATCH]);
      for (const due of await pendingNotices(deps, rows.map(notice), channels)) {
        addToTally(tally, await sendNotice(deps, due, channels, { taskRunId: input.taskRunId }));
      }
      if (rows.length < NOTICE_BATCH) return tally;
      last = rows[rows.length - 1]!.id;
    }
  };
  const reminders = await offer(RECENT_REMINDED, (row) => {
    const byAge = row.last_reply_at.getTime() + input.autoCloseDays * 86_400_000;
    const afterReminder = row.at.getTime() + input.reminderHours * 3_600_000;
    return closeReminderNotice(siteName, row, new Date(Math.max(byAge, afterReminder)));
  });
  const closed = await offer(RECENT_AUTO_CLOSED, (row) => autoClosedNotice(siteName, row));
  return { reminders, closed };
}

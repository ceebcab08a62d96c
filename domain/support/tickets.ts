import { inTransaction, sqlOne, sqlRows, type Tx } from '../../db/sql.js';
import type { MediaMime, TicketCloser, TicketPriority, TicketStatus } from '../../db/models/support.js';
import { AppError, ErrorCode, notFound, validationError } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';
import { lockMediaForReference } from '../media/media.js';
import { recordIntent } from '../outbox/intents.js';
import { ticketPolicy } from './policy.js';
import { windowCountSql } from '../../db/window-count.js';

/**
 * Tickets (docs/support.md). Status flow: `open` (new, waiting on staff) →
 * `answered` (a staff public reply; waiting on the customer, the only status auto-close acts
 * on) → `customer_reply` (the customer answered) → `answered` … → `closed` (by the customer,
 * staff, or auto-close). A closed ticket does not reopen on a customer reply (40955: the
 * customer opens a new ticket); staff may reopen it with a status change. Internal notes
 * change nothing but the thread. Bodies are plain text, stored as typed, never rendered.
 */

export type TicketRow = {
  id: number;
  user_id: number;
  department_id: number;
  department_name: string;
  service_id: number | null;
  subject: string;
  priority: TicketPriority;
  status: TicketStatus;
  assignee_admin_id: number | null;
  assignee_name: string | null;
  last_reply_at: Date;
  last_reply_by: 'user' | 'staff';
  reminded_at: Date | null;
  closed_at: Date | null;
  closed_by: TicketCloser | null;
  created_at: Date;
  updated_at: Date;
  user_email: string | null;
  excerpt: string;
};

export type ReplyRow = {
  id: number;
  ticket_id: number;
  author_type: 'user' | 'staff';
  user_id: number | null;
  admin_id: number | null;
  admin_name: string | null;
  body: string;
  is_internal: boolean;
  created_at: Date;
};

export type AttachmentRow = {
  id: number;
  reply_id: number;
  asset_id: string;
  original_name: string;
  mime: MediaMime;
  size_bytes: number;
  deleted: boolean;
};

export const EXCERPT_LENGTH = 100;
export const MAX_ATTACHMENTS = 5;
export const TICKET_SORT_KEYS = ['id', 'last_reply_at', 'created_at', 'priority'] as const;
export type TicketSortKey = (typeof TICKET_SORT_KEYS)[number];

/** Latest public reply's first characters, whitespace folded: lists never carry the full text. */
const EXCERPT = `COALESCE((SELECT left(regexp_replace(r.body, '\\s+', ' ', 'g'), ${EXCERPT_LENGTH}) FROM ticket_replies r
  WHERE r.ticket_id = t.id AND NOT r.is_internal ORDER BY r.id DESC LIMIT 1), '')`;

const TICKET_SELECT = `SELECT t.id, t.user_id, t.department_id, d.name AS department_name, t.service_id, t.subject, t.priority, t.status,
    t.assignee_admin_id, a.username AS assignee_name, t.last_reply_at, t.last_reply_by, t.reminded_at, t.closed_at, t.closed_by,
    t.created_at, t.updated_at, u.email AS user_email, ${EXCERPT} AS excerpt
  FROM tickets t JOIN ticket_departments d ON d.id = t.department_id JOIN users u ON u.id = t.user_id
  LEFT JOIN admins a ON a.id = t.assignee_admin_id`;

export const intentKeyForReply = (replyId: number) => `ticket-notice:${replyId}`;

/**
 * The per-user reply limit (new tickets count as replies): taken under a transaction-scoped
 * advisory lock of the user, so parallel requests cannot all pass the count.
 */
async function checkReplyRate(deps: DomainDeps, userId: number, tx: Tx): Promise<void> {
  const policy = await ticketPolicy(deps);
  await sqlRows(deps, "SELECT pg_advisory_xact_lock(hashtext('ticket-reply'), $1)", [userId], tx);
  const row = await sqlOne<{ n: number }>(
    deps,
    'SELECT count(*)::int AS n FROM ticket_replies WHERE user_id = $1 AND created_at > now() - make_interval(mins => $2)',
    [userId, policy.replyWindowMinutes],
    tx,
  );
  if ((row?.n ?? 0) >= policy.replyLimit) {
    throw new AppError(ErrorCode.TOO_MANY_REQUESTS, `回复过于频繁：每 ${policy.replyWindowMinutes} 分钟最多 ${policy.replyLimit} 条，请稍后再试`);
  }
}

/** Attaches the user's own unattached ticket uploads to a reply (42200 for anything else, without saying whose it is). */
async function attach(deps: DomainDeps, tx: Tx, replyId: number, userId: number, assetIds: string[]): Promise<void> {
  const unique = [...new Set(assetIds)];
  if (unique.length === 0) return;
  const files = await lockMediaForReference(deps, unique, tx);
  const usable = files.filter((f) => f.owner_user_id === userId && f.purpose === 'ticket');
  if (usable.length !== unique.length) throw validationError({ attachments: ['附件不存在或不可用，请重新上传'] });
  const inserted = await sqlRows<{ id: number }>(
    deps,
    `INSERT INTO ticket_attachments (reply_id, media_file_id) SELECT $1, unnest($2::int[]) ON CONFLICT (media_file_id) DO NOTHING RETURNING id`,
    [replyId, usable.map((f) => f.id)],
    tx,
  );
  if (inserted.length !== usable.length) throw validationError({ attachments: ['附件已用于其他回复，请重新上传'] });
}

async function insertReply(
  deps: DomainDeps,
  tx: Tx,
  input: { ticketId: number; author: { type: 'user'; id: number } | { type: 'staff'; id: number }; body: string; internal: boolean },
): Promise<number> {
  const row = await sqlOne<{ id: number }>(
    deps,
    `INSERT INTO ticket_replies (ticket_id, author_type, user_id, admin_id, body, is_internal) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id::int`,
    [input.ticketId, input.author.type, input.author.type === 'user' ? input.author.id : null, input.author.type === 'staff' ? input.author.id : null, input.body, input.internal],
    tx,
  );
  return (row as { id: number }).id;
}

/** The notice of a reply is promised in its transaction: the relay sends it (at most once per channel, the notification log). */
async function promiseNotice(deps: DomainDeps, tx: Tx, replyId: number): Promise<void> {
  await recordIntent(deps, { kind: 'ticket_notice', key: intentKeyForReply(replyId), payload: { reply_id: replyId }, delayMs: 0 }, tx);
}

export type CreateTicketInput = {
  department_id: number;
  subject: string;
  body: string;
  priority: TicketPriority;
  service_id?: number | undefined;
  attachments?: string[] | undefined;
};

export async function createTicket(deps: DomainDeps, userId: number, input: CreateTicketInput): Promise<number> {
  return inTransaction(deps, async (tx) => {
    await checkReplyRate(deps, userId, tx);
    const department = await sqlOne(deps, 'SELECT id FROM ticket_departments WHERE id = $1 AND is_visible', [input.department_id], tx);
    if (!department) throw validationError({ department_id: ['部门不存在'] });
    if (input.service_id !== undefined) {
      const service = await sqlOne(deps, 'SELECT id FROM services WHERE id = $1 AND user_id = $2', [input.service_id, userId], tx);
      if (!service) throw validationError({ service_id: ['服务不存在'] });
    }
    const ticket = await sqlOne<{ id: number }>(
      deps,
      `INSERT INTO tickets (user_id, department_id, service_id, subject, priority) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [userId, input.department_id, input.service_id ?? null, input.subject, input.priority],
      tx,
    );
    const ticketId = (ticket as { id: number }).id;
    const replyId = await insertReply(deps, tx, { ticketId, author: { type: 'user', id: userId }, body: input.body, internal: false });
    await attach(deps, tx, replyId, userId, input.attachments ?? []);
    await promiseNotice(deps, tx, replyId);
    return ticketId;
  });
}

/**
 * A customer reply: `answered` becomes `customer_reply` (open and customer_reply stay), the
 * auto-close reminder of the wait is cleared. Closed tickets refuse (40955).
 */
export async function replyAsClient(deps: DomainDeps, userId: number, ticketId: number, input: { body: string; attachments?: string[] | undefined }): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const ticket = await sqlOne<{ status: TicketStatus }>(deps, 'SELECT status FROM tickets WHERE id = $1 AND user_id = $2 FOR UPDATE', [ticketId, userId], tx);
    if (!ticket) throw notFound('工单不存在');
    if (ticket.status === 'closed') throw new AppError(ErrorCode.TICKET_CLOSED);
    await checkReplyRate(deps, userId, tx);
    await sqlRows(
      deps,
      `UPDATE tickets SET status = CASE WHEN status = 'answered' THEN 'customer_reply' ELSE status END, reminded_at = NULL,
         last_reply_at = now(), last_reply_by = 'user', updated_at = now() WHERE id = $1 RETURNING id`,
      [ticketId],
      tx,
    );
    const replyId = await insertReply(deps, tx, { ticketId, author: { type: 'user', id: userId }, body: input.body, internal: false });
    await attach(deps, tx, replyId, userId, input.attachments ?? []);
    await promiseNotice(deps, tx, replyId);
  });
}

export async function closeAsClient(deps: DomainDeps, userId: number, ticketId: number): Promise<void> {
  const closed = await sqlOne(
    deps,
    `UPDATE tickets SET status = 'closed', closed_at = now(), closed_by = 'user', updated_at = now()
      WHERE id = $1 AND user_id = $2 AND status <> 'closed' RETURNING id`,
    [ticketId, userId],
  );
  if (closed) return;
  const exists = await sqlOne(deps, 'SELECT id FROM tickets WHERE id = $1 AND user_id = $2', [ticketId, userId]);
  if (!exists) throw notFound('工单不存在');
  throw new AppError(ErrorCode.TICKET_CLOSED, '工单已关闭');
}

/**
 * A staff reply. Public: the ticket becomes `answered` (waiting on the customer) and the
 * customer is notified; closed tickets refuse (reopen first). Internal note: visible to staff
 * only, changes no status, allowed on closed tickets.
 */
export async function replyAsStaff(deps: DomainDeps, adminId: number, ticketId: number, input: { body: string; internal: boolean }): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const ticket = await sqlOne<{ status: TicketStatus }>(deps, 'SELECT status FROM tickets WHERE id = $1 FOR UPDATE', [ticketId], tx);
    if (!ticket) throw notFound('工单不存在');
    if (!input.internal) {
      if (ticket.status === 'closed') throw new AppError(ErrorCode.TICKET_CLOSED, '工单已关闭，请先重新打开再回复');
      await sqlRows(
        deps,
        `UPDATE tickets SET status = 'answered', reminded_at = NULL, last_reply_at = now(), last_reply_by = 'staff', updated_at = now()
          WHERE id = $1 RETURNING id`,
        [ticketId],
        tx,
      );
    }
    const replyId = await insertReply(deps, tx, { ticketId, author: { type: 'staff', id: adminId }, body: input.body, internal: input.internal });
    if (!input.internal) await promiseNotice(deps, tx, replyId);
  });
}

export async function assignTicket(deps: DomainDeps, ticketId: number, assigneeId: number | null): Promise<void> {
  if (assigneeId !== null) {
    const admin = await sqlOne(deps, "SELECT id FROM admins WHERE id = $1 AND status = 'active'", [assigneeId]);
    if (!admin) throw validationError({ admin_id: ['管理员不存在或已停用'] });
  }
  const row = await sqlOne(deps, 'UPDATE tickets SET assignee_admin_id = $2, updated_at = now() WHERE id = $1 RETURNING id', [ticketId, assigneeId]);
  if (!row) throw notFound('工单不存在');
}

/** Staff status change: any status; closing records staff as closer, reopening clears it; the auto-close reminder starts over. */
export async function setTicketStatus(deps: DomainDeps, ticketId: number, status: TicketStatus): Promise<void> {
  const row = await sqlOne(
    deps,
    `UPDATE tickets SET status = $2::varchar, reminded_at = NULL,
       closed_at = CASE WHEN $2::varchar = 'closed' THEN COALESCE(closed_at, now()) END,
       closed_by = CASE WHEN $2::varchar = 'closed' THEN COALESCE(closed_by, 'staff') END,
       last_reply_at = CASE WHEN $2::varchar = 'answered' AND status <> 'answered' THEN now() ELSE last_reply_at END,
       updated_at = now()
     WHERE id = $1 RETURNING id`,
    [ticketId, status],
  );
  if (!row) throw notFound('工单不存在');
}

export type TicketListQuery = {
  page: number;
  page_size: number;
  status?: TicketStatus | undefined;
  department_id?: number | undefined;
  priority?: TicketPriority | undefined;
  assignee_id?: number | undefined;
  user_id?: number | undefined;
  keyword?: string | undefined;
  sort?: { key: TicketSortKey; direction: 'ASC' | 'DESC' } | undefined;
};

const SORT_SQL: Record<TicketSortKey, string> = {
  id: 't.id',
  last_reply_at: 't.last_reply_at',
  created_at: 't.created_at',
  priority: "array_position(ARRAY['low','normal','high','urgent']::varchar[], t.priority)",
};

export async function listTickets(deps: DomainDeps, query: TicketListQuery): Promise<{ rows: TicketRow[]; total: number }> {
  const keyword = query.keyword?.trim() ? query.keyword.trim().replace(/[\\%_]/g, (ch) => `\\${ch}`) : null;
  const where = `($1::varchar IS NULL OR t.status = $1) AND ($2::int IS NULL OR t.department_id = $2) AND ($3::varchar IS NULL OR t.priority = $3)
    AND ($4::int IS NULL OR t.assignee_admin_id = $4) AND ($5::int IS NULL OR t.user_id = $5)
    AND ($6::text IS NULL OR t.subject ILIKE '%' || $6 || '%' ESCAPE '\\' OR t.id = $7::int)`;
  // A keyword of digits also finds the ticket of that number: by its key, so the subject's trigram index serves the rest.
  const ticketNo = keyword !== null && /^[1-9][0-9]{0,8}$/.test(keyword) ? Number(keyword) : null;
  const params = [query.status ?? null, query.department_id ?? null, query.priority ?? null, query.assignee_id ?? null, query.user_id ?? null, keyword, ticketNo];
  const [count] = await sqlRows<{ n: number }>(deps, windowCountSql(`SELECT 1 FROM tickets t WHERE ${where}`), params);
  const order = query.sort ? `${SORT_SQL[query.sort.key]} ${query.sort.direction}, t.id DESC` : 't.last_reply_at DESC, t.id DESC';
  // The page's ids first, from tickets alone along the order's index, then the joins and the
  // excerpt for those rows only: a deep page skips index entries, not joined rows (issue #35).
  const keys = `SELECT t.id FROM tickets t WHERE ${where} ORDER BY ${order} LIMIT $8 OFFSET $9`;
  const rows = await sqlRows<TicketRow>(deps, `${TICKET_SELECT} JOIN (${keys}) AS page ON page.id = t.id ORDER BY ${order}`, [
    ...params,
    query.page_size,
    (query.page - 1) * query.page_size,
  ]);
  return { rows, total: count?.n ?? 0 };
}

/** One ticket with its thread; `forUser` limits it to that user's ticket (40400 otherwise) and hides internal notes. */
export async function getTicket(deps: DomainDeps, ticketId: number, forUser: number | null): Promise<{ ticket: TicketRow; replies: ReplyRow[]; attachments: AttachmentRow[] }> {
  const ticket = await sqlOne<TicketRow>(deps, `${TICKET_SELECT} WHERE t.id = $1 AND ($2::int IS NULL OR t.user_id = $2)`, [ticketId, forUser]);
  if (!ticket) throw notFound('工单不存在');
  const replies = await sqlRows<ReplyRow>(
    deps,
    `SELECT r.id::int, r.ticket_id, r.author_type, r.user_id, r.admin_id, a.username AS admin_name, r.body, r.is_internal, r.created_at
       FROM ticket_replies r LEFT JOIN admins a ON a.id = r.admin_id
      WHERE r.ticket_id = $1 AND ($2::boolean OR NOT r.is_internal) ORDER BY r.id LIMIT 500`,
    [ticketId, forUser === null],
  );
  const attachments = await sqlRows<AttachmentRow>(
    deps,
    `SELECT ta.id, ta.reply_id::int, m.asset_id, m.original_name, m.mime, m.size_bytes, m.deleted_at IS NOT NULL AS deleted
       FROM ticket_attachments ta JOIN media_files m ON m.id = ta.media_file_id
      WHERE ta.reply_id = ANY($1::bigint[]) ORDER BY ta.id`,
    [replies.map((r) => r.id)],
  );
  return { ticket, replies, attachments };
}

/** Whether a user may see a ticket attachment (its ticket is theirs), for the signed view route. */
export async function ticketOfAttachment(deps: DomainDeps, mediaFileId: number): Promise<{ ticket_id: number; user_id: number } | null> {
  return sqlOne(
    deps,
    `SELECT t.id AS ticket_id, t.user_id FROM ticket_attachments ta JOIN ticket_replies r ON r.id = ta.reply_id JOIN tickets t ON t.id = r.ticket_id
      WHERE ta.media_file_id = $1`,
    [mediaFileId],
  );
}

export async function openTicketCount(deps: DomainDeps, userId: number): Promise<number> {
  const row = await sqlOne<{ n: number }>(deps, "SELECT count(*)::int AS n FROM tickets WHERE user_id = $1 AND status <> 'closed'", [userId]);
  return row?.n ?? 0;
}

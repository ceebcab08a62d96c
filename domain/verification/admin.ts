import { AppError, ErrorCode, notFound } from '../../lib/errors.js';
import { inTransaction, sqlOne, sqlRows } from '../../db/sql.js';
import { windowCountSql } from '../../db/window-count.js';
import type { DomainDeps } from '../deps.js';
import type { HistoryEvent } from './attempt-record.js';

export type VerificationListQuery = {
  page: number;
  page_size: number;
  status?: 1 | 2 | 3 | undefined;
  keyword?: string | undefined;
  date_from?: string | undefined;
  date_to?: string | undefined;
};

export type VerificationListItem = {
  user_id: number;
  email: string | null;
  phone: string | null;
  nickname: string;
  is_verified: number;
  verification_status: number | null;
  verification_name_mask: string | null;
  verification_id_mask: string | null;
  verified_at: Date | null;
  verification_updated_at: Date | null;
  attempts: number;
};

/**
 * Users with a verification state (admin list): masks only, never a sealed value. Filters:
 * status (1/2/3), keyword (e-mail, phone, nickname or user id), and the day range of the last
 * change (`date_from`/`date_to`, YYYY-MM-DD, Asia/Shanghai).
 */
export async function listVerifications(deps: DomainDeps, query: VerificationListQuery): Promise<{ rows: VerificationListItem[]; total: number }> {
  const conditions = ['u.verification_status IS NOT NULL'];
  const params: unknown[] = [];
  if (query.status) {
    params.push(query.status);
    conditions.push(`u.verification_status = $${params.length}`);
  }
  if (query.keyword) {
    params.push(`%${query.keyword.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
    const p = `$${params.length}`;
    const byId = /^\d{1,9}$/.test(query.keyword) ? ` OR u.id = ${Number(query.keyword)}` : '';
    conditions.push(`(u.email ILIKE ${p} OR u.phone ILIKE ${p} OR u.nickname ILIKE ${p}${byId})`);
  }
  if (query.date_from) {
    params.push(query.date_from);
    conditions.push(`u.verification_updated_at >= ($${params.length}::date::timestamp AT TIME ZONE 'Asia/Shanghai')`);
  }
  if (query.date_to) {
    params.push(query.date_to);
    conditions.push(`u.verification_updated_at < (($${params.length}::date + 1)::timestamp AT TIME ZONE 'Asia/Shanghai')`);
  }
  const where = conditions.join(' AND ');
  const limit = query.page_size;
  const offset = (query.page - 1) * query.page_size;
  params.push(limit, offset);
  const rows = await sqlRows<VerificationListItem>(
    deps,
    `SELECT u.id AS user_id, u.email, u.phone, u.nickname, u.is_verified, u.verification_status, u.verification_name_mask, u.verification_id_mask,
            u.verified_at, u.verification_updated_at,
            (SELECT count(*)::int FROM verification_attempts a WHERE a.user_id = u.id) AS attempts
       FROM users u WHERE ${where}
      ORDER BY u.verification_updated_at DESC NULLS LAST, u.id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  );
  // Counted within the paging window, in the list's order (users_verification_list_idx, 0040), as every list.
  const counted = await sqlOne<{ n: number }>(
    deps,
    windowCountSql(`SELECT 1 FROM users u WHERE ${where} ORDER BY u.verification_updated_at DESC NULLS LAST, u.id DESC`),
    params.slice(0, -2),
  );
  return { rows, total: counted?.n ?? 0 };
}

export type HistoryItem = {
  id: string;
  kind: 'attempt' | 'event';
  attempt_no: string | null;
  status: string | null;
  event: HistoryEvent | null;
  status_after: number | null;
  name_mask: string | null;
  id_mask: string | null;
  charge: string | null;
  fee: string | null;
  reason: string;
  source: string | null;
  admin_id: number | null;
  admin_name: string | null;
  at: Date;
};

/** A user's verification history: every result and unbinding (history rows), newest first, and their attempts. */
export async function verificationHistory(deps: DomainDeps, userId: number): Promise<{ events: HistoryItem[]; attempts: HistoryItem[] }> {
  const user = await sqlOne(deps, 'SELECT id FROM users WHERE id = $1', [userId]);
  if (!user) throw notFound('用户不存在');
  const events = await sqlRows<HistoryItem>(
    deps,
    `SELECT h.id::text, 'event' AS kind, a.attempt_no, NULL AS status, h.event, h.status_after, h.name_mask, h.id_mask, NULL AS charge, NULL AS fee,
            h.reason, h.source, h.admin_id, ad.username AS admin_name, h.created_at AS at
       FROM verification_history h LEFT JOIN verification_attempts a ON a.id = h.attempt_id LEFT JOIN admins ad ON ad.id = h.admin_id
      WHERE h.user_id = $1 ORDER BY h.id DESC LIMIT 200`,
    [userId],
  );
  const attempts = await sqlRows<HistoryItem>(
    deps,
    `SELECT id::text, 'attempt' AS kind, attempt_no, status, NULL AS event, NULL::smallint AS status_after, name_mask, id_mask, charge, fee::text,
            COALESCE(reason_message, '') AS reason, result_source AS source, NULL::int AS admin_id, NULL AS admin_name, created_at AS at
       FROM verification_attempts WHERE user_id = $1 ORDER BY id DESC LIMIT 200`,
    [userId],
  );
  return { events, attempts };
}

/**
 * Admin unbinding (permission `verification.manage`, with a reason): the user is no longer
 * verified (status back to none, masks and identity hash cleared, so the identity may verify
 * again, on this or another account), an open attempt is closed, and a history row names the
 * admin and the reason. Nothing is deleted. 40975 when the user is not verified.
 */
export async function unbindVerification(deps: DomainDeps, userId: number, admin: { id: number; username: string }, reason: string, traceId: string): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const user = await sqlOne<{ id: number; is_verified: number; verification_name_mask: string | null; verification_id_mask: string | null; verification_attempt_id: string | null }>(
      deps,
      'SELECT id, is_verified, verification_name_mask, verification_id_mask, verification_attempt_id FROM users WHERE id = $1 FOR UPDATE',
      [userId],
      tx,
    );
    if (!user) throw notFound('用户不存在');
    if (user.is_verified !== 1) throw new AppError(ErrorCode.VERIFICATION_NOT_BOUND, '该用户未完成实名认证，无需解除');
    await sqlRows(
      deps,
      `UPDATE users SET is_verified = 0, verification_status = NULL, verification_id_hash = NULL, verification_name_mask = NULL, verification_id_mask = NULL,
          verification_attempt_id = NULL, verified_at = NULL, verification_updated_at = now(), updated_at = now()
        WHERE id = $1 RETURNING id`,
      [userId],
      tx,
    );
    await sqlRows(
      deps,
      `INSERT INTO verification_history (user_id, attempt_id, event, status_after, name_mask, id_mask, reason, source, admin_id, trace_id)
       VALUES ($1, NULL, 'unbound', NULL, $2, $3, $4, 'admin', $5, $6) RETURNING id`,
      [userId, user.verification_name_mask, user.verification_id_mask, reason.slice(0, 255), admin.id, traceId.slice(0, 64)],
      tx,
    );
  });
  deps.logger.info({ userId, adminId: admin.id, admin: admin.username, traceId }, 'real-name verification unbound by admin');
}

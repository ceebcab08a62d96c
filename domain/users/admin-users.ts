import { DatabaseError, UniqueConstraintError } from 'sequelize';
import { sqlOne, sqlRows } from '../../db/sql.js';
import { conflict, notFound, validationError } from '../../lib/errors.js';
import { offerAuditBefore } from '../../lib/request-context.js';
import { hashPassword } from '../auth/passwords.js';
import { revokeAllSessions } from '../auth/sessions.js';
import type { DomainDeps } from '../deps.js';
import { listLogRows } from '../logs/log-list.js';
import { getUser } from './users.js';

/**
 * User management by an admin: create a user, edit the profile fields, reset the password (every
 * session ends), notes. Verification and member levels belong to their own areas.
 */
export type CreateUserInput = { email?: string | undefined; phone?: string | undefined; nickname?: string | undefined; password: string };
export type UpdateUserInput = { email?: string | null | undefined; phone?: string | null | undefined; nickname?: string | undefined };

/** The profile as the audit's `before` (never the hash). */
function profileOf(user: { id: number; email: string | null; phone: string | null; nickname: string; status: string }) {
  return { id: user.id, email: user.email, phone: user.phone, nickname: user.nickname, status: user.status };
}

const NEEDS_ACCOUNT = '邮箱和手机号不能同时为空，至少保留一个用于登录';

function duplicate(err: unknown, emptied?: 'email' | 'phone'): never {
  if (err instanceof UniqueConstraintError) {
    const fields = Object.keys(err.fields ?? {});
    throw conflict(fields.includes('phone') ? '该手机号已被其他用户使用' : '该邮箱已被其他用户使用');
  }
  // users_has_account (email or phone): a concurrent edit removed the other one meanwhile.
  if (err instanceof DatabaseError && (err.parent as { constraint?: string }).constraint === 'users_has_account') {
    throw validationError({ [emptied ?? 'email']: [NEEDS_ACCOUNT] });
  }
  throw err;
}

export async function createUserByAdmin(deps: DomainDeps, input: CreateUserInput) {
  const email = input.email?.trim().toLowerCase() || null;
  const phone = input.phone?.trim() || null;
  const passwordHash = await hashPassword(input.password);
  try {
    // In a transaction so the admin audit row commits with the user (db/sequelize.ts).
    return await deps.db.sequelize.transaction((transaction) =>
      deps.db.models.User.create(
        {
          email,
          phone,
          nickname: input.nickname?.trim() || (email ? (email.split('@')[0] ?? '') : (phone ?? '')),
          password_hash: passwordHash,
          status: 'active',
        },
        { transaction },
      ),
    );
  } catch (err) {
    duplicate(err);
  }
}

/** Edits the given fields; a changed e-mail is unverified again. */
export async function updateUserProfile(deps: DomainDeps, id: number, input: UpdateUserInput) {
  const user = await getUser(deps, id);
  offerAuditBefore(profileOf(user));
  if (input.email !== undefined) {
    const email = input.email === null ? null : input.email.trim().toLowerCase();
    if (email !== user.email) {
      user.email = email;
      user.email_verified_at = null;
    }
  }
  if (input.phone !== undefined) user.phone = input.phone === null ? null : input.phone.trim();
  if (input.nickname !== undefined) user.nickname = input.nickname.trim();
  // A user signs in with an e-mail or a phone (CHECK users_has_account): removing the last one is refused, naming the field.
  const emptied = input.email === null ? 'email' : input.phone === null ? 'phone' : undefined;
  if (user.email === null && user.phone === null) throw validationError({ [emptied ?? 'email']: [NEEDS_ACCOUNT] });
  try {
    await deps.db.sequelize.transaction((transaction) => user.save({ transaction }));
  } catch (err) {
    duplicate(err, emptied);
  }
  return user;
}

/** Sets a new password and ends every session of the user, in one transaction. */
export async function resetUserPassword(deps: DomainDeps, id: number, password: string) {
  const user = await getUser(deps, id);
  const passwordHash = await hashPassword(password);
  await deps.db.sequelize.transaction(async (transaction) => {
    user.password_hash = passwordHash;
    await user.save({ transaction });
    await revokeAllSessions(deps, 'client', id, transaction);
  });
  return user;
}

export type UserNoteRow = { id: number; user_id: number; admin_id: number | null; admin_name: string; content: string; created_at: Date };

export async function addUserNote(deps: DomainDeps, userId: number, admin: { id: number; username: string }, content: string): Promise<UserNoteRow> {
  await getUser(deps, userId);
  const row = await deps.db.sequelize.transaction((transaction) =>
    sqlOne<UserNoteRow>(
      deps,
      `INSERT INTO user_notes (user_id, admin_id, admin_name, content) VALUES ($1, $2, $3, $4)
       RETURNING id, user_id, admin_id, admin_name, content, created_at`,
      [userId, admin.id, admin.username.slice(0, 64), content],
      transaction,
    ),
  );
  if (!row) throw new Error('note not inserted');
  return row;
}

export async function listUserNotes(deps: DomainDeps, userId: number, paging: { page: number; page_size: number }) {
  await getUser(deps, userId);
  const [rows, counted] = await Promise.all([
    sqlRows<UserNoteRow>(
      deps,
      `SELECT id, user_id, admin_id, admin_name, content, created_at FROM user_notes WHERE user_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`,
      [userId, paging.page_size, (paging.page - 1) * paging.page_size],
    ),
    sqlRows<{ total: number }>(deps, `SELECT count(*)::int AS total FROM user_notes WHERE user_id = $1`, [userId]),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

export type UserLogRow = { id: number; type: 'login' | 'api'; summary: string; success: boolean; ip: string; created_at: Date };

/**
 * A user's own logs, newest first: sign-ins (`login`) or API requests (`api`). Login rows name
 * the account tried; API rows the route template and outcome, never a body.
 */
export async function listUserLogs(deps: DomainDeps, userId: number, query: { page: number; page_size: number; type: 'login' | 'api' }) {
  const user = await getUser(deps, userId);
  if (!user) throw notFound('用户不存在');
  if (query.type === 'api') {
    // The request log is a log list like the others: newest first on its user index, counted up to the window.
    return listLogRows<UserLogRow>(deps, {
      select: `l.id::int AS id, 'api' AS type, l.method || ' ' || l.route || ' → ' || l.status AS summary, l.status < 400 AS success, l.ip, l.created_at`,
      from: 'api_request_logs l',
      conditions: ['l.user_id = $1'],
      values: [userId],
      order: 'l.created_at DESC, l.id DESC',
      paging: query,
    });
  }
  const [rows, counted] = await Promise.all([
    sqlRows<UserLogRow>(
      deps,
      `SELECT id::int AS id, 'login' AS type, CASE WHEN success THEN '登录成功' ELSE '登录失败：' || reason END AS summary, success, ip, created_at
         FROM login_logs WHERE surface = 'client' AND subject_id = $1 ORDER BY login_logs.id DESC LIMIT $2 OFFSET $3`,
      [userId, query.page_size, (query.page - 1) * query.page_size],
    ),
    sqlRows<{ total: number }>(deps, `SELECT count(*)::int AS total FROM login_logs WHERE surface = 'client' AND subject_id = $1`, [userId]),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

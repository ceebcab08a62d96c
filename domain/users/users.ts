import { notFound } from '../../lib/errors.js';
import type { UserRow } from '../../db/models/user.js';
import { sqlRows } from '../../db/sql.js';
import { revokeAllSessions } from '../auth/sessions.js';
import type { DomainDeps } from '../deps.js';
import { windowCountSql } from '../../db/window-count.js';

export const USER_SORT_KEYS = ['id', 'created_at', 'last_login_at'] as const;
export type UserSortKey = (typeof USER_SORT_KEYS)[number];

export type UserListQuery = {
  page: number;
  page_size: number;
  keyword?: string | undefined;
  status?: 'active' | 'disabled' | undefined;
  sort?: { key: UserSortKey; direction: 'ASC' | 'DESC' } | undefined;
};

/** The columns a user list shows; never the password hash. */
export type UserListItem = Pick<
  UserRow,
  'id' | 'email' | 'phone' | 'nickname' | 'status' | 'email_verified_at' | 'is_verified' | 'verification_status' | 'last_login_at' | 'created_at'
>;

const LIST_COLUMNS = 'id, email, phone, nickname, status, email_verified_at, is_verified, verification_status, last_login_at, created_at';

/**
 * The admin user list, on the hot path of the admin console: plain rows of the listed columns
 * only (`sqlRows`, no model building), count and page queried concurrently. Filters are bound
 * parameters; the sort column comes from the whitelist. Limit and offset are validated integers
 * written inline, so the unfiltered list goes over the simple query protocol (one round of
 * socket writes instead of parse/bind/describe/execute/sync). A NULL sorts as the oldest value.
 */
export async function listUsers(deps: DomainDeps, query: UserListQuery): Promise<{ rows: UserListItem[]; total: number }> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (query.status) {
    params.push(query.status);
    conditions.push(`status = $${params.length}`);
  }
  if (query.keyword) {
    params.push(`%${query.keyword.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
    const p = `$${params.length}`;
    conditions.push(`(email ILIKE ${p} OR phone ILIKE ${p} OR nickname ILIKE ${p})`);
  }
  const where = conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '';
  const sort = query.sort ?? { key: 'id', direction: 'DESC' };
  const column = USER_SORT_KEYS.includes(sort.key) ? sort.key : 'id';
  const direction = sort.direction === 'ASC' ? 'ASC' : 'DESC';
  // Only a column that can be empty names where its empties go: on id and created_at (NOT NULL) the
  // clause would not match their indexes' order and made every page a sort of all users (issue #35).
  const nulls = column !== 'last_login_at' ? '' : direction === 'ASC' ? 'NULLS FIRST' : 'NULLS LAST';
  const limit = query.page_size;
  const offset = (query.page - 1) * query.page_size;
  if (!Number.isSafeInteger(limit) || !Number.isSafeInteger(offset) || limit < 1 || offset < 0) {
    throw new Error(`invalid paging: page ${query.page}, page_size ${query.page_size}`);
  }
  const [rows, counted] = await Promise.all([
    sqlRows<UserListItem>(
      deps,
      `SELECT ${LIST_COLUMNS} FROM users${where} ORDER BY ${column} ${direction}${nulls ? ` ${nulls}` : ''}, id DESC LIMIT ${limit} OFFSET ${offset}`,
      params,
    ),
    sqlRows<{ n: number }>(deps, windowCountSql(`SELECT 1 FROM users${where}`), params),
  ]);
  return { rows, total: counted[0]?.n ?? 0 };
}

export async function getUser(deps: DomainDeps, id: number) {
  const user = await deps.db.models.User.findByPk(id);
  if (!user) throw notFound('用户不存在');
  return user;
}

/** Disabling a user also ends every session they hold. */
export async function setUserStatus(deps: DomainDeps, id: number, status: 'active' | 'disabled') {
  const user = await getUser(deps, id);
  await deps.db.sequelize.transaction(async (transaction) => {
    user.status = status;
    await user.save({ transaction });
    if (status === 'disabled') await revokeAllSessions(deps, 'client', id, transaction);
  });
  return user;
}

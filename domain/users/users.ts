import { Op, type WhereOptions } from 'sequelize';
import { notFound } from '../../lib/errors.js';
import type { UserRow } from '../../db/models/user.js';
import { revokeAllSessions } from '../auth/sessions.js';
import type { DomainDeps } from '../deps.js';

export const USER_SORT_KEYS = ['id', 'created_at', 'last_login_at'] as const;
export type UserSortKey = (typeof USER_SORT_KEYS)[number];

export type UserListQuery = {
  page: number;
  page_size: number;
  keyword?: string | undefined;
  status?: 'active' | 'disabled' | undefined;
  sort?: { key: UserSortKey; direction: 'ASC' | 'DESC' } | undefined;
};

export async function listUsers(deps: DomainDeps, query: UserListQuery) {
  const where: WhereOptions<UserRow> = {};
  if (query.status) Object.assign(where, { status: query.status });
  if (query.keyword) {
    const like = `%${query.keyword.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    Object.assign(where, { [Op.or]: [{ email: { [Op.iLike]: like } }, { phone: { [Op.iLike]: like } }, { nickname: { [Op.iLike]: like } }] });
  }
  const sort = query.sort ?? { key: 'id', direction: 'DESC' };
  const { rows, count } = await deps.db.models.User.findAndCountAll({
    where,
    order: [[sort.key, sort.direction], ['id', 'DESC']],
    limit: query.page_size,
    offset: (query.page - 1) * query.page_size,
  });
  return { rows, total: count };
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

import type { WhereOptions } from 'sequelize';
import type { LoginLogRow } from '../../db/models/auth-session.js';
import type { DomainDeps } from '../deps.js';

export type LoginLogQuery = {
  page: number;
  page_size: number;
  surface?: 'admin' | 'client' | undefined;
  account?: string | undefined;
  success?: boolean | undefined;
};

export async function listLoginLogs(deps: DomainDeps, query: LoginLogQuery) {
  const where: WhereOptions<LoginLogRow> = {};
  if (query.surface) Object.assign(where, { surface: query.surface });
  if (query.account) Object.assign(where, { account: query.account });
  if (query.success !== undefined) Object.assign(where, { success: query.success });
  const { rows, count } = await deps.db.models.LoginLog.findAndCountAll({
    where,
    order: [['id', 'DESC']],
    limit: query.page_size,
    offset: (query.page - 1) * query.page_size,
  });
  return { rows, total: count };
}

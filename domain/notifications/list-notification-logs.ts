import type { WhereOptions } from 'sequelize';
import type { NotificationChannel, NotificationKind, NotificationLogRow, NotificationStatus } from '../../db/models/notification-log.js';
import type { DomainDeps } from '../deps.js';

export type NotificationLogQuery = {
  page: number;
  page_size: number;
  kind?: NotificationKind | undefined;
  channel?: NotificationChannel | undefined;
  status?: NotificationStatus | undefined;
  user_id?: number | undefined;
  entity_type?: 'service' | 'invoice' | 'ticket' | undefined;
  entity_id?: number | undefined;
};

/** The notification log, newest first (what was sent to whom, masked; never the message body). */
export async function listNotificationLogs(deps: DomainDeps, query: NotificationLogQuery) {
  const where: WhereOptions<NotificationLogRow> = {};
  for (const key of ['kind', 'channel', 'status', 'user_id', 'entity_type', 'entity_id'] as const) {
    if (query[key] !== undefined) Object.assign(where, { [key]: query[key] });
  }
  const { rows, count } = await deps.db.models.NotificationLog.findAndCountAll({
    where,
    order: [['id', 'DESC']],
    limit: query.page_size,
    offset: (query.page - 1) * query.page_size,
  });
  return { rows, total: count };
}

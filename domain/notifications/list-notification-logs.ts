import { sqlParams } from '../../db/sql.js';
import { listLogRows } from '../logs/log-list.js';
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

/** The notification log, newest first (what was sent to whom, masked; never the message body); bounded as every log list. */
export async function listNotificationLogs(deps: DomainDeps, query: NotificationLogQuery) {
  const { values, param } = sqlParams();
  const conditions: string[] = [];
  for (const key of ['kind', 'channel', 'status', 'user_id', 'entity_type', 'entity_id'] as const) {
    if (query[key] !== undefined) conditions.push(`${key} = ${param(query[key])}`);
  }
  const { rows, total } = await listLogRows<NotificationLogRow['_creationAttributes']>(deps, {
    select: '*',
    from: 'notification_log n',
    conditions,
    values,
    order: 'n.id DESC',
    paging: query,
  });
  return { rows: deps.db.models.NotificationLog.bulkBuild(rows, { isNewRecord: false, raw: true }), total };
}

/** The Chinese name of each notification kind (the admin's notification, SMS and mail logs). */
export const NOTIFICATION_KIND_LABELS: Record<NotificationKind, string> = {
  renewal_due: '到期提醒',
  service_overdue: '逾期提醒',
  service_suspended: '服务暂停通知',
  service_terminated: '服务终止通知',
  invoice_unpaid: '账单未支付提醒',
  ticket_staff_reply: '工单回复通知',
  ticket_customer_reply: '工单客户回复通知',
  ticket_close_reminder: '工单即将自动关闭提醒',
  ticket_auto_closed: '工单自动关闭通知',
};

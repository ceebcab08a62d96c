import { z } from '@hono/zod-openapi';
import { NOTIFICATION_CHANNELS, NOTIFICATION_ENTITY_TYPES, NOTIFICATION_KINDS, NOTIFICATION_STATUSES, type NotificationLogRow } from '../../../db/models/notification-log.js';
import { listNotificationLogs, NOTIFICATION_KIND_LABELS } from '../../../domain/notifications/list-notification-logs.js';
import { formatDateTime } from '../../../lib/time.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { dateTimeString, idQuery, LOG_LIST_NOTE, logListQuery } from '../../schemas.js';


const STATUS_LABELS: Record<NotificationLogRow['status'], string> = {
  sending: '发送中',
  sent: '已发送',
  failed: '发送失败',
  unknown: '结果未知',
};

const notificationLogSchema = z
  .object({
    id: z.number().int(),
    kind: z.enum(NOTIFICATION_KINDS),
    kind_label: z.string(),
    channel: z.enum(NOTIFICATION_CHANNELS).openapi({ description: 'mail：邮件；sms：短信' }),
    entity_type: z.enum(NOTIFICATION_ENTITY_TYPES),
    entity_id: z.number().int(),
    occasion: z.string().openapi({ description: '同一对象的不同提醒（如到期时间与提前天数 `…:d7`）；(kind, channel, entity, occasion) 唯一，保证只发送一次' }),
    user_id: z.number().int(),
    recipient: z.string().openapi({ description: '收件地址或手机号（已脱敏）' }),
    subject: z.string(),
    status: z.enum(NOTIFICATION_STATUSES).openapi({
      description: 'sending：已占用、正在发送（进程中断后 1 小时内转为 unknown）；sent：已发送；failed：插件明确未发送（后续运行重试，最多 3 次）；unknown：结果未知（超时或中断），不再重发',
    }),
    status_label: z.string(),
    attempts: z.number().int(),
    error: z.string().nullable(),
    created_at: dateTimeString.nullable(),
    sent_at: dateTimeString.nullable(),
  })
  .openapi('NotificationLog');

const notificationLogs = defineRoute({
  method: 'get',
  path: '/api/v2/admin/logs/notification-logs',
  tags: ['管理端：日志'],
  summary: '通知记录（邮件与短信提醒）',
  description: `生命周期任务发送的到期、逾期、暂停、终止与账单未支付提醒，每条提醒每个渠道一行；不含正文。${LOG_LIST_NOTE}`,
  access: { surface: 'admin', permission: 'log.view' },
  request: {
    query: logListQuery({
      kind: z.enum(NOTIFICATION_KINDS).optional(),
      channel: z.enum(NOTIFICATION_CHANNELS).optional(),
      status: z.enum(NOTIFICATION_STATUSES).optional(),
      user_id: idQuery().optional(),
      entity_type: z.enum(NOTIFICATION_ENTITY_TYPES).optional(),
      entity_id: idQuery().optional(),
    }),
  },
  data: pageSchema(notificationLogSchema),
});

function notificationLogItem(row: NotificationLogRow) {
  return {
    id: row.id,
    kind: row.kind,
    kind_label: NOTIFICATION_KIND_LABELS[row.kind],
    channel: row.channel,
    entity_type: row.entity_type,
    entity_id: row.entity_id,
    occasion: row.occasion,
    user_id: row.user_id,
    recipient: row.recipient,
    subject: row.subject,
    status: row.status,
    status_label: STATUS_LABELS[row.status],
    attempts: row.attempts,
    error: row.error ?? null,
    created_at: formatDateTime(row.created_at),
    sent_at: formatDateTime(row.sent_at),
  };
}

export const adminNotificationLogRoutes = createRouter().openapi(notificationLogs, async (c) => {
  const query = c.req.valid('query');
  const { rows, total } = await listNotificationLogs(c.var.deps, query);
  return ok(c, page(rows.map(notificationLogItem), total, query));
});

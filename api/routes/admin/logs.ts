import { NOTIFICATION_KIND_LABELS } from '../../../domain/notifications/list-notification-logs.js';
import { z } from '@hono/zod-openapi';
import { NOTIFICATION_KINDS, NOTIFICATION_STATUSES, type NotificationChannel } from '../../../db/models/notification-log.js';
import { formatDateTime } from '../../../lib/time.js';
import { cleanUpLogType, LOG_TYPE_LABELS, LOG_TYPES } from '../../../domain/logs/clean-up.js';
import { listLoginLogs } from '../../../domain/logs/login-logs.js';
import { listMessageLogs, type MessageLogRow } from '../../../domain/logs/message-logs.js';
import { listRequestLogs } from '../../../domain/logs/request-logs.js';
import { getSystemLog, listSystemLogs, SYSTEM_LOG_CATEGORIES, SYSTEM_LOG_LEVELS, type SystemLogRow } from '../../../domain/logs/system-logs.js';
import { listTaskRuns } from '../../../domain/tasks/task-runs.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { taskRunItem, taskRunItemSchema, taskRunStatus, taskRunTrigger } from '../../resources/task-run.js';
import { boolQuery, dateQuery, dateTimeString, idParam, idQuery, jsonBody, listQuery, LOG_LIST_NOTE, logListQuery } from '../../schemas.js';

const tags = ['管理端：日志'];
const view = { surface: 'admin', permission: 'log.view' } as const;
const dayRange = { date_from: dateQuery.optional(), date_to: dateQuery.optional() };

const loginLogSchema = z
  .object({
    id: z.number().int(),
    surface: z.enum(['admin', 'client']),
    account: z.string(),
    subject_id: z.number().int().nullable(),
    ip: z.string(),
    user_agent: z.string(),
    success: z.boolean(),
    reason: z.string().openapi({
      description:
        '失败原因：unknown_account、bad_password、disabled、throttled（因失败过多被拒绝，未校验密码，不计入失败次数）、pending（正在校验）；' +
        '成功行在上次成功登录后有过密码错误时为 after_failures:N,addresses:M（N 次错误，来自 M 个地址），否则为空',
    }),
    created_at: dateTimeString.nullable(),
  })
  .openapi('LoginLog');

const loginLogs = defineRoute({
  method: 'get',
  path: '/api/v2/admin/logs/login-logs',
  tags,
  summary: '登录日志',
  access: view,
  request: {
    query: listQuery({
      surface: z.enum(['admin', 'client']).optional(),
      account: z.string().max(191).optional(),
      success: boolQuery.optional(),
    }),
  },
  data: pageSchema(loginLogSchema),
});

const requestLogSchema = z
  .object({
    id: z.number().int(),
    method: z.string(),
    route: z.string().openapi({ description: '路由模板（不含具体路径、查询串与请求体）；未匹配任何路由的请求记为 unmatched' }),
    status: z.number().int(),
    code: z.number().int().nullable().openapi({ description: '响应信封的业务码；非 JSON 响应为 null' }),
    duration_ms: z.number().int(),
    user_id: z.number().int().nullable(),
    admin_id: z.number().int().nullable(),
    ip: z.string(),
    request_id: z.string(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('ApiRequestLog');

const requestLogs = defineRoute({
  method: 'get',
  path: '/api/v2/admin/logs/api-logs',
  tags,
  summary: '接口请求日志',
  description: `每个接口请求一行，批量异步写入，可能比请求晚约 1 秒出现；从不记录请求体、查询串或请求头。不记录：健康检查、指标抓取，以及站点公开目录（/api/v2/site/…）成功的请求（只计入指标 http_requests_total）；站点请求失败（4xx、5xx）照常记录。按时间倒序；按月分区，给出日期范围时只读所涉月份。${LOG_LIST_NOTE}`,
  access: view,
  request: {
    query: logListQuery({
      method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']).optional(),
      route: z.string().max(255).optional(),
      status: idQuery('状态码必须是正整数').optional(),
      code: idQuery('业务码必须是正整数').optional(),
      user_id: idQuery().optional(),
      admin_id: idQuery().optional(),
      request_id: z.string().max(64).optional(),
      ip: z.string().max(64).optional(),
      keyword: z.string().min(1, { error: '关键词不能为空' }).max(64).optional().openapi({ description: '路由模板包含的文字（不区分大小写；走三元组索引，至少 3 个字符时最快）' }),
      min_duration_ms: idQuery('耗时必须是正整数').optional(),
      ...dayRange,
    }),
  },
  data: pageSchema(requestLogSchema),
});

const messageLogSchema = z
  .object({
    id: z.number().int(),
    scene: z.enum(NOTIFICATION_KINDS),
    scene_label: z.string(),
    user_id: z.number().int(),
    recipient: z.string().openapi({ description: '收件人（已脱敏）' }),
    subject: z.string(),
    status: z.enum(NOTIFICATION_STATUSES),
    attempts: z.number().int(),
    plugin_id: z.number().int().nullable(),
    plugin_slug: z.string().nullable(),
    error: z.string().nullable().openapi({ description: '失败摘要（插件返回，最多 200 字）' }),
    created_at: dateTimeString.nullable(),
    sent_at: dateTimeString.nullable(),
  })
  .openapi('MessageLog');

const messageRoute = (channel: NotificationChannel) =>
  defineRoute({
    method: 'get',
    path: `/api/v2/admin/logs/${channel}-logs`,
    tags,
    summary: channel === 'sms' ? '短信日志' : '邮件日志',
    description: `通知任务经${channel === 'sms' ? '短信' : '邮件'}插件发送的每条通知：场景、收件人（脱敏）、插件、状态与失败摘要；从不保存正文。与通知记录（logs/notification-logs）是同一份数据按渠道的视图。${LOG_LIST_NOTE}`,
    access: view,
    request: {
      query: logListQuery({
        scene: z.enum(NOTIFICATION_KINDS).optional(),
        status: z.enum(NOTIFICATION_STATUSES).optional(),
        user_id: idQuery().optional(),
        ...dayRange,
      }),
    },
    data: pageSchema(messageLogSchema),
  });

const smsLogs = messageRoute('sms');
const mailLogs = messageRoute('mail');

function messageItem(row: MessageLogRow) {
  return {
    id: row.id,
    scene: row.scene,
    scene_label: NOTIFICATION_KIND_LABELS[row.scene],
    user_id: row.user_id,
    recipient: row.recipient,
    subject: row.subject,
    status: row.status,
    attempts: row.attempts,
    plugin_id: row.plugin_id,
    plugin_slug: row.plugin_slug,
    error: row.error,
    created_at: formatDateTime(row.created_at),
    sent_at: formatDateTime(row.sent_at),
  };
}

const taskLogs = defineRoute({
  method: 'get',
  path: '/api/v2/admin/logs/task-logs',
  tags,
  summary: '任务日志（计划任务的运行记录）',
  description: `与 schedules/task-runs 相同的数据；详情见 schedules/task-runs/{id}。${LOG_LIST_NOTE}`,
  access: view,
  request: {
    query: logListQuery({
      task_key: z.string().max(128).optional(),
      status: taskRunStatus.optional(),
      trigger: taskRunTrigger.optional(),
      plugin_slug: z.string().max(64).optional(),
    }),
  },
  data: pageSchema(taskRunItemSchema),
});

const systemLogSchema = z
  .object({
    id: z.number().int(),
    level: z.enum(SYSTEM_LOG_LEVELS),
    category: z.enum(SYSTEM_LOG_CATEGORIES).openapi({ description: 'startup：进程启动；migration：数据库迁移；schedule：计划的创建、变更、暂停与恢复；plugin：插件安装、启用、停用、配置与卸载；config：配置错误；audit：管理员审计链的每日校验结果' }),
    event: z.string(),
    message: z.string(),
    process: z.string().openapi({ description: 'api、worker 或 migrate' }),
    created_at: dateTimeString.nullable(),
  })
  .openapi('SystemLog');

const systemLogDetailSchema = systemLogSchema.extend({ detail: z.unknown().nullable().openapi({ description: '事件的附加信息（已脱敏）' }) }).openapi('SystemLogDetail');

const systemLogDetail = defineRoute({
  method: 'get',
  path: '/api/v2/admin/logs/system-logs/{id}',
  tags,
  summary: '系统日志详情',
  access: view,
  request: { params: idParam('id') },
  data: systemLogDetailSchema,
});

function systemLogItem(r: SystemLogRow) {
  return { id: r.id, level: r.level, category: r.category, event: r.event, message: r.message, process: r.process, created_at: formatDateTime(r.created_at) };
}

const systemLogs = defineRoute({
  method: 'get',
  path: '/api/v2/admin/logs/system-logs',
  tags,
  summary: '系统日志',
  access: view,
  request: {
    query: listQuery({
      category: z.enum(SYSTEM_LOG_CATEGORIES).optional(),
      level: z.enum(SYSTEM_LOG_LEVELS).optional(),
      event: z.string().max(64).optional(),
      ...dayRange,
    }),
  },
  data: pageSchema(systemLogSchema),
});

const cleanUp = defineRoute({
  method: 'post',
  path: '/api/v2/admin/logs/clean-up',
  tags,
  summary: '按类型与时间清理日志',
  description:
    '删除一种日志中早于 older_than_days 天的记录（分批删除）。类型：api 接口请求、sms 短信、mail 邮件、task 任务（运行中的保留）、system 系统、login 登录、plugin 插件运行日志。短信与邮件记录是“只发送一次”的凭据，至少保留 30 天（且长于未付账单的取消天数）；登录日志至少保留登录限流的窗口。管理员审计不能清理。',
  access: { surface: 'admin', permission: 'log.manage' },
  request: jsonBody(
    z.object({
      type: z.enum(LOG_TYPES),
      older_than_days: z.number({ error: '天数必须是整数' }).int({ error: '天数必须是整数' }).min(0, { error: '天数不能为负' }).max(3650, { error: '天数最多 3650' }),
    }),
  ),
  data: z.object({ type: z.enum(LOG_TYPES), type_label: z.string(), older_than_days: z.number().int(), cutoff: dateTimeString.nullable(), deleted: z.number().int() }),
});

export const adminLogRoutes = createRouter()
  .openapi(requestLogs, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listRequestLogs(c.var.deps, query);
    return ok(c, page(rows.map((r) => ({ ...r, created_at: formatDateTime(r.created_at) })), total, query));
  })
  .openapi(smsLogs, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listMessageLogs(c.var.deps, 'sms', query);
    return ok(c, page(rows.map(messageItem), total, query));
  })
  .openapi(mailLogs, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listMessageLogs(c.var.deps, 'mail', query);
    return ok(c, page(rows.map(messageItem), total, query));
  })
  .openapi(taskLogs, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listTaskRuns(c.var.deps, query);
    return ok(c, page(rows.map(taskRunItem), total, query));
  })
  .openapi(systemLogs, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listSystemLogs(c.var.deps, query);
    return ok(c, page(rows.map(systemLogItem), total, query));
  })
  .openapi(systemLogDetail, async (c) => {
    const row = await getSystemLog(c.var.deps, c.req.valid('param').id);
    return ok(c, { ...systemLogItem(row), detail: row.detail ?? null });
  })
  .openapi(cleanUp, async (c) => {
    const { type, older_than_days } = c.req.valid('json');
    const { deleted, cutoff } = await cleanUpLogType(c.var.deps, type, older_than_days);
    return ok(c, { type, type_label: LOG_TYPE_LABELS[type], older_than_days, cutoff: formatDateTime(cutoff), deleted }, `已删除 ${deleted} 条${LOG_TYPE_LABELS[type]}`);
  })
  .openapi(loginLogs, async (c) => {
  const query = c.req.valid('query');
  const { rows, total } = await listLoginLogs(c.var.deps, query);
  const list = rows.map((r) => ({
    id: r.id,
    surface: r.surface,
    account: r.account,
    subject_id: r.subject_id,
    ip: r.ip,
    user_agent: r.user_agent,
    success: r.success,
    reason: r.reason,
    created_at: formatDateTime(r.created_at),
  }));
  return ok(c, page(list, total, query));
});

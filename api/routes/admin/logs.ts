import { z } from '@hono/zod-openapi';
import { formatDateTime } from '../../../lib/time.js';
import { listLoginLogs } from '../../../domain/logs/login-logs.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { boolQuery, dateTimeString, listQuery } from '../../schemas.js';

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
  tags: ['管理端：日志'],
  summary: '登录日志',
  access: { surface: 'admin', permission: 'log.view' },
  request: {
    query: listQuery({
      surface: z.enum(['admin', 'client']).optional(),
      account: z.string().max(191).optional(),
      success: boolQuery.optional(),
    }),
  },
  data: pageSchema(loginLogSchema),
});

export const adminLogRoutes = createRouter().openapi(loginLogs, async (c) => {
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

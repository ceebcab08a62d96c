import { z } from '@hono/zod-openapi';
import { ErrorCode } from '../../../lib/errors.js';
import { listVerifications, unbindVerification, verificationHistory } from '../../../domain/verification/admin.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { historyItemResource, historyItemSchema, verificationListItemResource, verificationListItemSchema } from '../../resources/verification.js';
import { idParam, jsonBody, listQuery } from '../../schemas.js';

const tags = ['管理端：实名认证'];
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: '日期格式应为 YYYY-MM-DD' }).refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)), { error: '日期无效' });

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/verifications',
  tags,
  summary: '实名认证列表',
  description: '有认证状态的用户（姓名、身份证号只显示掩码）。status：1 认证中，2 已认证，3 未通过；keyword 匹配邮箱、手机号、昵称或用户 id；date_from/date_to 按最近变更日期（Asia/Shanghai）。',
  access: { surface: 'admin', permission: 'verification.view' },
  request: {
    query: listQuery({
      status: z.enum(['1', '2', '3']).optional(),
      keyword: z.string().max(100).optional(),
      date_from: day.optional(),
      date_to: day.optional(),
    }),
  },
  data: pageSchema(verificationListItemSchema),
});

const history = defineRoute({
  method: 'get',
  path: '/api/v2/admin/verifications/{user}/history',
  tags,
  summary: '用户实名认证历史',
  description: 'events：每次结果与解除绑定（含操作管理员与原因）；attempts：每次认证尝试。只显示掩码。',
  access: { surface: 'admin', permission: 'verification.view' },
  request: { params: idParam('user') },
  data: z.object({ events: z.array(historyItemSchema), attempts: z.array(historyItemSchema) }),
});

const unbind = defineRoute({
  method: 'post',
  path: '/api/v2/admin/verifications/{user}/unbindings',
  tags,
  summary: '解除用户实名认证',
  description: '需填写原因。用户回到未实名状态，身份信息可重新用于认证；历史记录保留并记下操作管理员与原因，不删除任何记录。用户未实名 40975。',
  access: { surface: 'admin', permission: 'verification.manage' },
  request: { params: idParam('user'), ...jsonBody(z.object({ reason: z.string({ error: '请填写解除原因' }).trim().min(1, { error: '请填写解除原因' }).max(255) })) },
  data: z.null(),
  errors: [ErrorCode.VERIFICATION_NOT_BOUND],
});

export const adminVerificationRoutes = createRouter()
  .openapi(list, async (c) => {
    const q = c.req.valid('query');
    const { rows, total } = await listVerifications(c.var.deps, { ...q, status: q.status ? (Number(q.status) as 1 | 2 | 3) : undefined });
    return ok(c, page(rows.map(verificationListItemResource), total, q));
  })
  .openapi(history, async (c) => {
    const { events, attempts } = await verificationHistory(c.var.deps, c.req.valid('param').user);
    return ok(c, { events: events.map(historyItemResource), attempts: attempts.map(historyItemResource) });
  })
  .openapi(unbind, async (c) => {
    await unbindVerification(c.var.deps, c.req.valid('param').user, c.var.admin, c.req.valid('json').reason, c.var.requestId);
    return ok(c, null, '已解除实名认证');
  });

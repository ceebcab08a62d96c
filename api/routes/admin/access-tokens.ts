import { z } from '@hono/zod-openapi';
import { listPersonalTokens, revokePersonalToken, TOKEN_STATUSES } from '../../../domain/auth/personal-tokens.js';
import { adminActor } from '../../../lib/actor.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { accessTokenResource, accessTokenSchema } from '../../resources/access-tokens.js';
import { idParam, idQuery, listQuery } from '../../schemas.js';

const tags = ['管理端：用户'];

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/access-tokens',
  tags,
  summary: '用户的个人访问令牌（按用户筛选；不含令牌密钥）',
  access: { surface: 'admin', permission: 'user.view' },
  request: {
    query: listQuery({
      user_id: idQuery('用户编号必须是正整数').optional(),
      status: z.enum(TOKEN_STATUSES, { error: '状态只能是 active、expired 或 revoked' }).optional(),
    }),
  },
  data: pageSchema(accessTokenSchema),
});

const revoke = defineRoute({
  method: 'delete',
  path: '/api/v2/admin/access-tokens/{id}',
  tags,
  summary: '吊销用户的个人访问令牌（立即失效）',
  access: { surface: 'admin', permission: 'user.manage' },
  request: { params: idParam('id') },
  data: accessTokenSchema,
});

export const adminAccessTokenRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listPersonalTokens(c.var.deps, query);
    return ok(c, page(rows.map(accessTokenResource), total, query));
  })
  .openapi(revoke, async (c) => {
    const row = await revokePersonalToken(c.var.deps, c.req.valid('param').id, adminActor(c.var.admin));
    return ok(c, accessTokenResource(row), '令牌已吊销');
  });

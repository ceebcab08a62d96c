import { z } from '@hono/zod-openapi';
import { TOKEN_SCOPES } from '../../../db/models/personal-access-token.js';
import { createPersonalToken, listPersonalTokens, revokePersonalToken, TOKEN_MAX_DAYS, TOKEN_MAX_LIVE_PER_USER, TOKEN_STATUSES } from '../../../domain/auth/personal-tokens.js';
import { userActor } from '../../../lib/actor.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { requestMeta } from '../../middleware/request-meta.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { accessTokenResource, accessTokenSchema, createdAccessTokenSchema } from '../../resources/access-tokens.js';
import { idParam, jsonBody, listQuery } from '../../schemas.js';

const tags = ['客户端：访问令牌'];
// Tokens are account management: a token can neither create, list nor revoke tokens.
const access = { surface: 'client', tokenScope: 'none' } as const;

const create = defineRoute({
  method: 'post',
  path: '/api/v2/client/access-tokens',
  tags,
  summary: '创建个人访问令牌（完整令牌只在本次返回）',
  description:
    `供脚本与下游系统调用客户端接口：请求头 Authorization: Bearer hp_pat_…。权限范围 read（只读接口）、purchase（下单、账单、支付、续费、流量包、升降级）、console（控制台、VNC、电源等服务操作），可多选；` +
    `有效期必填，1 到 ${TOKEN_MAX_DAYS} 天；每个用户最多同时持有 ${TOKEN_MAX_LIVE_PER_USER} 个有效令牌。账号管理接口（密码、资料、令牌、两步验证、实名认证）不能使用令牌，管理端接口也不能。`,
  access,
  request: jsonBody(
    z.object({
      name: z.string({ error: '请填写令牌名称' }).trim().min(1, { error: '令牌名称不能为空' }).max(64, { error: '令牌名称最多 64 个字符' }),
      scopes: z
        .array(z.enum(TOKEN_SCOPES, { error: '权限范围只能是 read、purchase 或 console' }), { error: '请选择权限范围' })
        .min(1, { error: '至少选择一个权限范围' })
        .max(TOKEN_SCOPES.length, { error: `最多 ${TOKEN_SCOPES.length} 个权限范围` })
        .refine((scopes) => new Set(scopes).size === scopes.length, { error: '权限范围不能重复' }),
      expires_in_days: z
        .number({ error: '有效期必须是天数（整数）' })
        .int({ error: '有效期必须是整数天' })
        .min(1, { error: '有效期至少 1 天' })
        .max(TOKEN_MAX_DAYS, { error: `有效期最多 ${TOKEN_MAX_DAYS} 天` }),
    }),
  ),
  data: createdAccessTokenSchema,
});

const list = defineRoute({
  method: 'get',
  path: '/api/v2/client/access-tokens',
  tags,
  summary: '我的个人访问令牌（不含令牌密钥）',
  access,
  request: { query: listQuery({ status: z.enum(TOKEN_STATUSES, { error: '状态只能是 active、expired 或 revoked' }).optional() }) },
  data: pageSchema(accessTokenSchema),
});

const revoke = defineRoute({
  method: 'delete',
  path: '/api/v2/client/access-tokens/{id}',
  tags,
  summary: '吊销个人访问令牌（立即失效）',
  access,
  request: { params: idParam('id') },
  data: accessTokenSchema,
});

export const clientAccessTokenRoutes = createRouter()
  .openapi(create, async (c) => {
    const body = c.req.valid('json');
    const { row, token } = await createPersonalToken(
      c.var.deps,
      c.var.client.id,
      { name: body.name, scopes: body.scopes, expiresInDays: body.expires_in_days },
      requestMeta(c),
    );
    return ok(c, { ...accessTokenResource(row), token }, '令牌已创建，请立即保存，之后无法再次查看');
  })
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listPersonalTokens(c.var.deps, { ...query, user_id: c.var.client.id });
    return ok(c, page(rows.map(accessTokenResource), total, query));
  })
  .openapi(revoke, async (c) => {
    const { id } = c.var.client;
    const row = await revokePersonalToken(c.var.deps, c.req.valid('param').id, userActor(id), id);
    return ok(c, accessTokenResource(row), '令牌已吊销');
  });

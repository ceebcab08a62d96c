import { z } from '@hono/zod-openapi';
import { getUser, listUsers, setUserStatus, USER_SORT_KEYS } from '../../../domain/users/users.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { userResource, userSchema } from '../../resources/accounts.js';
import { idParam, listQuery, sortQuery } from '../../schemas.js';

const tags = ['管理端：用户'];

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/users',
  tags,
  summary: '用户列表',
  description: '按邮箱、手机号或昵称搜索；sort 可选 id、created_at、last_login_at（前缀 - 倒序），默认 -id。',
  access: { surface: 'admin', permission: 'user.view' },
  request: {
    query: listQuery({
      keyword: z.string().max(100).optional(),
      status: z.enum(['active', 'disabled']).optional(),
      sort: sortQuery(USER_SORT_KEYS).optional(),
    }),
  },
  data: pageSchema(userSchema),
});

const detail = defineRoute({
  method: 'get',
  path: '/api/v2/admin/users/{user}',
  tags,
  summary: '用户详情',
  access: { surface: 'admin', permission: 'user.view' },
  request: { params: idParam('user') },
  data: userSchema,
});

const disable = defineRoute({
  method: 'post',
  path: '/api/v2/admin/users/{user}/disable',
  tags,
  summary: '禁用用户（其所有会话立即失效）',
  access: { surface: 'admin', permission: 'user.manage' },
  request: { params: idParam('user') },
  data: userSchema,
});

const enable = defineRoute({
  method: 'post',
  path: '/api/v2/admin/users/{user}/enable',
  tags,
  summary: '启用用户',
  access: { surface: 'admin', permission: 'user.manage' },
  request: { params: idParam('user') },
  data: userSchema,
});

export const adminUserRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listUsers(c.var.deps, query);
    return ok(c, page(rows.map(userResource), total, query));
  })
  .openapi(detail, async (c) => ok(c, userResource(await getUser(c.var.deps, c.req.valid('param').user))))
  .openapi(disable, async (c) =>
    ok(c, userResource(await setUserStatus(c.var.deps, c.req.valid('param').user, 'disabled')), '用户已禁用'),
  )
  .openapi(enable, async (c) =>
    ok(c, userResource(await setUserStatus(c.var.deps, c.req.valid('param').user, 'active')), '用户已启用'),
  );

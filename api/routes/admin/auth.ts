import { z } from '@hono/zod-openapi';
import { notFound } from '../../../lib/errors.js';
import { listAdmins, createAdmin, updateAdmin } from '../../../domain/admins/admins.js';
import { createRole, listRoles, updateRole } from '../../../domain/admins/roles.js';
import { changeOwnPassword } from '../../../domain/auth/change-password.js';
import { loginAdmin } from '../../../domain/auth/login.js';
import { PERMISSIONS } from '../../../domain/auth/permissions.js';
import { refreshSession, revokeSession } from '../../../domain/auth/sessions.js';
import { resetTwoFactor } from '../../../domain/auth/two-factor.js';
import { ErrorCode } from '../../../lib/errors.js';
import { ok, page, pageOfAll, pageSchema } from '../../envelope.js';
import { requestMeta } from '../../middleware/request-meta.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { LOGIN_DESCRIPTION, loginAnswerSchema, twoFactorOperationId } from '../two-factor.js';
import { adminResource, adminSchema, roleResource, roleSchema, tokenSchema } from '../../resources/accounts.js';
import { idInput, idParam, jsonBody as json, listQuery, newPassword as password } from '../../schemas.js';

const tags = ['管理端：认证与管理员'];

const login = defineRoute({
  method: 'post',
  path: '/api/v2/admin/login',
  tags,
  summary: '管理员登录（开启两步验证时为第一步）',
  description: LOGIN_DESCRIPTION,
  access: { surface: 'public' },
  request: json(z.object({ username: z.string().min(1).max(64), password: z.string().min(1).max(128) })),
  data: loginAnswerSchema('admin', adminSchema),
  errors: [ErrorCode.UNAUTHENTICATED, ErrorCode.FORBIDDEN, ErrorCode.TOO_MANY_REQUESTS],
});

const logout = defineRoute({
  method: 'post',
  path: '/api/v2/admin/auth/logout',
  tags,
  summary: '退出登录（当前令牌立即失效）',
  access: { surface: 'admin', duringEnrolment: true },
  data: z.null(),
});

const refresh = defineRoute({
  method: 'post',
  path: '/api/v2/admin/auth/refresh',
  tags,
  summary: '刷新令牌（旧令牌立即失效）',
  access: { surface: 'admin', duringEnrolment: true },
  data: z.object(tokenSchema),
});

const me = defineRoute({
  method: 'get',
  path: '/api/v2/admin/auth/me',
  tags,
  summary: '当前管理员',
  access: { surface: 'admin', duringEnrolment: true },
  data: adminSchema,
});

const changePassword = defineRoute({
  method: 'post',
  path: '/api/v2/admin/auth/password',
  tags,
  summary: '修改自己的密码（所有会话失效，需重新登录）',
  access: { surface: 'admin' },
  request: json(z.object({ old_password: z.string().min(1), new_password: password })),
  data: z.null(),
});

const permissions = defineRoute({
  method: 'get',
  path: '/api/v2/admin/auth/permissions',
  tags,
  summary: '权限代码列表',
  description: '分页对象；权限代码是固定词表（`page_size` 最大 100，取全表请按页读取）。',
  access: { surface: 'admin', permission: 'admin.manage' },
  request: { query: listQuery({}) },
  data: pageSchema(z.object({ code: z.string(), label: z.string() }).openapi('PermissionCode')),
});

const roles = defineRoute({
  method: 'get',
  path: '/api/v2/admin/auth/roles',
  tags,
  summary: '角色列表',
  access: { surface: 'admin', permission: 'admin.manage' },
  request: { query: listQuery({}) },
  data: pageSchema(roleSchema),
});

const roleBody = z.object({
  code: z.string().regex(/^[a-z][a-z0-9_]{1,63}$/, { error: '角色代码只能包含小写字母、数字和下划线，以字母开头' }),
  name: z.string().min(1).max(64),
  permissions: z.array(z.string()).max(100),
});

const createRoleRoute = defineRoute({
  method: 'post',
  path: '/api/v2/admin/auth/roles',
  tags,
  summary: '创建角色',
  access: { surface: 'admin', permission: 'admin.manage', stepUp: true },
  request: json(roleBody),
  data: roleSchema,
  errors: [ErrorCode.CONFLICT],
});

const updateRoleRoute = defineRoute({
  method: 'put',
  path: '/api/v2/admin/auth/roles/{role}',
  tags,
  summary: '修改角色名称或权限',
  access: { surface: 'admin', permission: 'admin.manage', stepUp: true },
  request: { params: idParam('role'), ...json(roleBody.omit({ code: true }).partial()) },
  data: roleSchema,
  errors: [ErrorCode.CONFLICT],
});

const admins = defineRoute({
  method: 'get',
  path: '/api/v2/admin/auth/admins',
  tags,
  summary: '管理员列表',
  access: { surface: 'admin', permission: 'admin.manage' },
  request: { query: listQuery({}) },
  data: pageSchema(adminSchema),
});

const createAdminRoute = defineRoute({
  method: 'post',
  path: '/api/v2/admin/auth/admins',
  tags,
  summary: '创建管理员',
  access: { surface: 'admin', permission: 'admin.manage', stepUp: true },
  request: json(
    z.object({
      username: z.string().regex(/^[A-Za-z0-9_.-]{3,64}$/, { error: '用户名为 3 到 64 位字母、数字、下划线、点或横线' }),
      display_name: z.string().max(64).optional(),
      password,
      role_id: idInput(),
    }),
  ),
  data: adminSchema,
  errors: [ErrorCode.CONFLICT],
});

const updateAdminRoute = defineRoute({
  method: 'put',
  path: '/api/v2/admin/auth/admins/{admin}',
  tags,
  summary: '修改管理员（资料、角色、状态、重置密码）',
  access: { surface: 'admin', permission: 'admin.manage', stepUp: true },
  request: {
    params: idParam('admin'),
    ...json(
      z.object({
        display_name: z.string().max(64).optional(),
        role_id: idInput().optional(),
        status: z.enum(['active', 'disabled']).optional(),
        password: password.optional(),
      }),
    ),
  },
  data: adminSchema,
  errors: [ErrorCode.CONFLICT],
});

const resetTwoFactorRoute = defineRoute({
  method: 'post',
  path: '/api/v2/admin/auth/admins/{admin}/2fa/reset',
  operationId: twoFactorOperationId('post', '/api/v2/admin/auth/admins/{admin}/2fa/reset'),
  tags,
  summary: '重置其他管理员的两步验证（丢失手机时；其会话全部失效，需重新绑定）',
  access: { surface: 'admin', permission: 'admin.reset_2fa', stepUp: true },
  request: { params: idParam('admin') },
  data: z.null(),
  errors: [ErrorCode.CONFLICT],
});

export const adminAuthRoutes = createRouter()
  .openapi(login, async (c) => {
    const result = await loginAdmin(c.var.deps, c.req.valid('json'), requestMeta(c));
    if (result.challenge) {
      const { challengeToken, expiresIn } = result.challenge;
      return ok(c, { two_factor_required: true as const, challenge_token: challengeToken, challenge_expires_in: expiresIn }, '请输入两步验证码');
    }
    const admin = await c.var.deps.db.models.Admin.findByPk(result.row.id, { include: [{ association: 'role' }] });
    if (!admin) throw notFound('管理员不存在');
    const answer = {
      two_factor_required: false as const,
      two_factor_enrolment_required: result.enrolmentRequired,
      ...result.token,
      admin: adminResource(admin),
    };
    return ok(c, answer, result.enrolmentRequired ? '登录成功，请先绑定两步验证' : '登录成功');
  })
  .openapi(logout, async (c) => {
    await revokeSession(c.var.deps, c.var.admin.sessionId);
    return ok(c, null, '已退出登录');
  })
  .openapi(refresh, async (c) => {
    const { id, sessionId } = c.var.admin;
    return ok(c, await refreshSession(c.var.deps, 'admin', id, sessionId, requestMeta(c)));
  })
  .openapi(me, async (c) => {
    const admin = await c.var.deps.db.models.Admin.findByPk(c.var.admin.id, { include: [{ association: 'role' }] });
    if (!admin) throw notFound('管理员不存在');
    return ok(c, adminResource(admin));
  })
  .openapi(changePassword, async (c) => {
    await changeOwnPassword(c.var.deps, 'admin', c.var.admin.id, c.req.valid('json'));
    return ok(c, null, '密码已修改，请重新登录');
  })
  .openapi(permissions, (c) =>
    ok(c, pageOfAll(Object.entries(PERMISSIONS).map(([code, label]) => ({ code, label })), c.req.valid('query'))),
  )
  .openapi(roles, async (c) => ok(c, pageOfAll((await listRoles(c.var.deps)).map(roleResource), c.req.valid('query'))))
  .openapi(createRoleRoute, async (c) => ok(c, roleResource(await createRole(c.var.deps, c.req.valid('json'))), '角色已创建'))
  .openapi(updateRoleRoute, async (c) =>
    ok(c, roleResource(await updateRole(c.var.deps, c.req.valid('param').role, c.req.valid('json'))), '角色已更新'),
  )
  .openapi(admins, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listAdmins(c.var.deps, query);
    return ok(c, page(rows.map(adminResource), total, query));
  })
  .openapi(createAdminRoute, async (c) => ok(c, adminResource(await createAdmin(c.var.deps, c.req.valid('json'))), '管理员已创建'))
  .openapi(resetTwoFactorRoute, async (c) => {
    await resetTwoFactor(c.var.deps, c.var.admin, c.req.valid('param').admin, requestMeta(c));
    return ok(c, null, '已重置该管理员的两步验证');
  })
  .openapi(updateAdminRoute, async (c) => {
    const admin = await updateAdmin(c.var.deps, c.var.admin.id, c.req.valid('param').admin, c.req.valid('json'));
    return ok(c, adminResource(admin), '管理员已更新');
  });

import { z } from '@hono/zod-openapi';
import { notFound } from '../../../lib/errors.js';
import { changeOwnPassword } from '../../../domain/auth/change-password.js';
import { loginClient } from '../../../domain/auth/login.js';
import { registerClient } from '../../../domain/auth/register.js';
import { refreshSession, revokeSession } from '../../../domain/auth/sessions.js';
import { ErrorCode } from '../../../lib/errors.js';
import { ok } from '../../envelope.js';
import { requestMeta } from '../../middleware/request-meta.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { LOGIN_DESCRIPTION, loginAnswerSchema } from '../two-factor.js';
import { tokenSchema, userResource, userSchema } from '../../resources/accounts.js';
import { jsonBody as json, newPassword as password } from '../../schemas.js';

const tags = ['客户端：认证'];

const register = defineRoute({
  method: 'post',
  path: '/api/v2/client/register',
  tags,
  summary: '注册（邮箱），成功后直接登录',
  description: '管理员关闭开放注册（系统设置 registration.enabled）后返回 40300，除非带上配置的邀请码 invite_code。',
  access: { surface: 'public' },
  request: json(
    z.object({
      email: z.email().max(191),
      password,
      nickname: z.string().max(64).optional(),
      invite_code: z.string().min(1).max(64).optional(),
      referral_code: z.string().max(16).optional().openapi({ description: '推广邀请码（可选）：绑定邀请人，仅注册时一次，之后不可更改' }),
    }),
  ),
  data: z.object({ ...tokenSchema, user: userSchema }),
  errors: [ErrorCode.CONFLICT, ErrorCode.FORBIDDEN],
});

const login = defineRoute({
  method: 'post',
  path: '/api/v2/client/login',
  tags,
  summary: '登录（邮箱或手机号；开启两步验证时为第一步）',
  description: LOGIN_DESCRIPTION,
  access: { surface: 'public' },
  request: json(z.object({ account: z.string().min(1).max(191), password: z.string().min(1).max(128) })),
  data: loginAnswerSchema('user', userSchema),
  errors: [ErrorCode.UNAUTHENTICATED, ErrorCode.FORBIDDEN, ErrorCode.TOO_MANY_REQUESTS],
});

const logout = defineRoute({
  method: 'post',
  path: '/api/v2/client/auth/logout',
  tags,
  summary: '退出登录（当前令牌立即失效）',
  access: { surface: 'client' },
  data: z.null(),
});

const refresh = defineRoute({
  method: 'post',
  path: '/api/v2/client/auth/refresh',
  tags,
  summary: '刷新令牌（旧令牌立即失效）',
  access: { surface: 'client' },
  data: z.object(tokenSchema),
});

const me = defineRoute({
  method: 'get',
  path: '/api/v2/client/auth/me',
  tags,
  summary: '当前用户',
  access: { surface: 'client', tokenScope: 'none' },
  data: userSchema,
});

const changePassword = defineRoute({
  method: 'post',
  path: '/api/v2/client/password',
  tags,
  summary: '修改密码（所有会话失效，需重新登录）',
  access: { surface: 'client' },
  request: json(z.object({ old_password: z.string().min(1), new_password: password })),
  data: z.null(),
});

export const clientAuthRoutes = createRouter()
  .openapi(register, async (c) => {
    const body = c.req.valid('json');
    const { user, token } = await registerClient(c.var.deps, { email: body.email, password: body.password, nickname: body.nickname, invite_code: body.invite_code, referralCode: body.referral_code }, requestMeta(c));
    return ok(c, { ...token, user: userResource(user) }, '注册成功');
  })
  .openapi(login, async (c) => {
    const result = await loginClient(c.var.deps, c.req.valid('json'), requestMeta(c));
    if (result.challenge) {
      const { challengeToken, expiresIn } = result.challenge;
      return ok(c, { two_factor_required: true as const, challenge_token: challengeToken, challenge_expires_in: expiresIn }, '请输入两步验证码');
    }
    const answer = { two_factor_required: false as const, two_factor_enrolment_required: false, ...result.token, user: userResource(result.row) };
    return ok(c, answer, '登录成功');
  })
  .openapi(logout, async (c) => {
    await revokeSession(c.var.deps, c.var.client.sessionId);
    return ok(c, null, '已退出登录');
  })
  .openapi(refresh, async (c) => {
    const { id, sessionId } = c.var.client;
    return ok(c, await refreshSession(c.var.deps, 'client', id, sessionId, requestMeta(c)));
  })
  .openapi(me, async (c) => {
    const user = await c.var.deps.db.models.User.findByPk(c.var.client.id);
    if (!user) throw notFound('用户不存在');
    return ok(c, userResource(user));
  })
  .openapi(changePassword, async (c) => {
    await changeOwnPassword(c.var.deps, 'client', c.var.client.id, c.req.valid('json'));
    return ok(c, null, '密码已修改，请重新登录');
  });

import type { MiddlewareHandler } from 'hono';
import { forbidden, unauthenticated } from '../../lib/errors.js';
import { requireFreshSecondFactor } from '../../domain/auth/two-factor.js';
import { adminHasPermission } from '../../domain/auth/principals.js';
import { authenticateAdmin, authenticateClient } from '../../domain/auth/sessions.js';
import { isPersonalAccessToken } from '../../domain/auth/personal-tokens.js';
import type { AppEnv } from '../context.js';
import type { Access } from '../openapi/define-route.js';
import { requireVerified } from '../../domain/access/require-verified.js';
import type { AccessAction } from '../../lib/config.js';
import { personalTokenPrincipal } from './personal-tokens.js';

export function bearerToken(header: string | undefined): string | null {
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match?.[1] ?? null;
}

/**
 * Enforces a route's access rule: 40100 without a live token, 40300 for the wrong surface or
 * permission, or a personal access token without the route's scope.
 */
export function requireAccess(access: Access): MiddlewareHandler<AppEnv> {
  if (access.surface === 'public') return async (_c, next) => next();
  return async (c, next) => {
    const token = bearerToken(c.req.header('authorization'));
    if (!token) throw unauthenticated();
    const deps = c.var.deps;
    if (access.surface === 'admin') {
      // A personal access token is a client credential: never an admin one, whatever it holds.
      if (isPersonalAccessToken(token)) throw unauthenticated('个人访问令牌不能用于管理端接口');
      const admin = await authenticateAdmin(deps, token);
      if (access.permission && !adminHasPermission(admin, access.permission)) throw forbidden();
      c.set('admin', admin);
    } else {
      c.set('client', isPersonalAccessToken(token) ? await personalTokenPrincipal(c, access, token) : await authenticateClient(deps, token));
    }
    await next();
  };
}

/** After `requireAccess` on a client route: the e-mail / real-name preconditions of the action (40301). */
export function requirePrecondition(action: AccessAction): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await requireVerified(c.var.deps, c.var.client.id, action);
    await next();
  };
}

/**
 * After `requireAccess` (and the audit) on an admin route: a session that must first enrol a
 * second factor reaches only the routes marked `duringEnrolment` (40300 elsewhere), and a
 * `stepUp` route needs a recent second-factor verification (40302; docs/security.md).
 */
export function requireSecondFactor(access: Extract<Access, { surface: 'admin' }>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const admin = c.var.admin;
    if (admin.sessionScope === 'enrol' && !access.duringEnrolment) {
      throw forbidden('请先绑定两步验证：当前登录仅可用于绑定两步验证（/api/v2/admin/auth/2fa）');
    }
    if (access.stepUp) await requireFreshSecondFactor(c.var.deps, admin);
    await next();
  };
}

import type { Context } from 'hono';
import { forbidden, unauthenticated } from '../../lib/errors.js';
import { requireFreshSecondFactor } from '../../domain/auth/two-factor.js';
import { adminHasPermission } from '../../domain/auth/principals.js';
import { adminFor, clientFor } from '../../domain/auth/sessions.js';
import { isPersonalAccessToken } from '../../domain/auth/personal-tokens.js';
import type { AppEnv } from '../context.js';
import type { Access } from '../openapi/access.js';
import { requireVerified } from '../../domain/access/require-verified.js';
import type { AccessAction } from '../../lib/config.js';
import { personalTokenPrincipal } from './personal-tokens.js';
import type { RouteCheck } from './route-checks.js';
import type { AdminPrincipal, ClientPrincipal } from '../../domain/auth/principals.js';

export function bearerToken(header: string | undefined): string | null {
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match?.[1] ?? null;
}

/**
 * A route's access rule, decided once per request: 40100 without a live token, 40300 for the
 * wrong surface or permission, or a personal access token without the route's scope. The admin
 * or client is set on the context. Waits only when the token or its session is not known yet
 * (`adminFor`, `clientFor`) or for a personal access token. Null for a public route (nothing to check).
 */
export function accessCheck(access: Access): RouteCheck | null {
  if (access.surface === 'public') return null;
  if (access.surface === 'admin') {
    const permitted = (c: Context<AppEnv>, admin: AdminPrincipal): void => {
      if (access.permission && !adminHasPermission(admin, access.permission)) throw forbidden();
      c.set('admin', admin);
    };
    return (c) => {
      const token = bearerToken(c.req.header('authorization'));
      if (!token) throw unauthenticated();
      // A personal access token is a client credential: never an admin one, whatever it holds.
      if (isPersonalAccessToken(token)) throw unauthenticated('个人访问令牌不能用于管理端接口');
      const admin = adminFor(c.var.deps, token);
      if (!(admin instanceof Promise)) return permitted(c, admin);
      return admin.then((found) => permitted(c, found));
    };
  }
  const signedIn = (c: Context<AppEnv>, client: ClientPrincipal): void => {
    c.set('client', client);
  };
  return (c) => {
    const token = bearerToken(c.req.header('authorization'));
    if (!token) throw unauthenticated();
    const client = isPersonalAccessToken(token) ? personalTokenPrincipal(c, access, token) : clientFor(c.var.deps, token);
    if (!(client instanceof Promise)) return signedIn(c, client);
    return client.then((found) => signedIn(c, found));
  };
}

/** After the access check on a client route: the e-mail / real-name preconditions of the action (40301). */
export function preconditionCheck(action: AccessAction): RouteCheck {
  return (c) => requireVerified(c.var.deps, c.var.client.id, action);
}

/**
 * After the access check (and the audit) on an admin route: a session that must first enrol a
 * second factor reaches only the routes marked `duringEnrolment` (40300 elsewhere), and a
 * `stepUp` route needs a recent second-factor verification (40302; docs/security.md).
 */
export function secondFactorCheck(access: Extract<Access, { surface: 'admin' }>): RouteCheck {
  return (c) => {
    const admin = c.var.admin;
    if (admin.sessionScope === 'enrol' && !access.duringEnrolment) {
      throw forbidden('请先绑定两步验证：当前登录仅可用于绑定两步验证（/api/v2/admin/auth/2fa）');
    }
    if (access.stepUp) return requireFreshSecondFactor(c.var.deps, admin);
  };
}

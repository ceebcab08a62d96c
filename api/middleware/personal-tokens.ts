import type { Context } from 'hono';
import { authenticatePersonalToken } from '../../domain/auth/personal-tokens.js';
import type { ClientPrincipal } from '../../domain/auth/principals.js';
import { forbidden } from '../../lib/errors.js';
import type { AppEnv } from '../context.js';
import type { Access } from '../openapi/access.js';
import { requestMeta } from './request-meta.js';

export const TOKEN_NOT_ALLOWED = '此接口不能使用个人访问令牌，请使用登录令牌';

export function tokenScopeRefusal(scope: string): string {
  return `个人访问令牌没有此接口所需的权限范围 ${scope}`;
}

/**
 * The client behind a personal access token, when the route's token scope allows it: the
 * token's scopes must include the route's (`x-token-scope`); a route whose scope is `none`
 * (account management, or a write that declared no scope) refuses every token. A rule without
 * a decided scope (not made by `defineRoute`) refuses tokens too.
 */
export async function personalTokenPrincipal(c: Context<AppEnv>, access: Extract<Access, { surface: 'client' }>, bearer: string): Promise<ClientPrincipal> {
  const principal = await authenticatePersonalToken(c.var.deps, bearer, { ip: requestMeta(c).ip });
  const scope = access.tokenScope ?? 'none';
  if (scope === 'none') throw forbidden(TOKEN_NOT_ALLOWED);
  if (!principal.token?.scopes.includes(scope)) throw forbidden(tokenScopeRefusal(scope));
  return principal;
}

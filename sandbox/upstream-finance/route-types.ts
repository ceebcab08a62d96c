import type { AccountState, SandboxState } from './state.js';
import type { SandboxAnswer, SandboxRequestInput } from './types.js';

/**
 * `required`: a valid token or status 405. `optional`: catalogue reads that answer an
 * anonymous visitor when the token is missing or expired. `module`: custom module pages and
 * actions, which take the token only with the `JWT` scheme. `none`: login.
 */
export type RouteAuth = 'required' | 'optional' | 'module' | 'none';

export type RouteContext = SandboxRequestInput & { state: SandboxState; account: AccountState | null };

/** Handlers of `required` and `module` routes run only with an account. */
export type AuthedRouteContext = RouteContext & { account: AccountState };

export type SandboxRoute =
  | { method: 'GET' | 'POST'; path: string; auth: 'optional' | 'none'; handle(context: RouteContext): SandboxAnswer | Promise<SandboxAnswer> }
  | { method: 'GET' | 'POST'; path: string; auth: 'required' | 'module'; handle(context: AuthedRouteContext): SandboxAnswer | Promise<SandboxAnswer> };

import type { AccountState, SandboxState } from './state.js';
import type { SandboxAnswer, SandboxRequestInput } from './types.js';

/**
 * `required`: a valid token or status 405. `optional`: catalogue reads that answer an
 * anonymous visitor when the token is missing or expired. `none`: login.
 */
export type RouteAuth = 'required' | 'optional' | 'none';

export type RouteContext = SandboxRequestInput & { state: SandboxState; account: AccountState | null };

export type SandboxRoute = {
  method: 'GET' | 'POST';
  path: string;
  auth: RouteAuth;
  handle(context: RouteContext): SandboxAnswer | Promise<SandboxAnswer>;
};

import type { TokenScope } from '../../db/models/personal-access-token.js';
import type { PermissionCode } from '../../domain/auth/permissions.js';
import type { AccessAction } from '../../lib/config.js';

/** Who may call a route: declared by every route (`defineRoute`, define-route.ts), read by the auth middleware and the document. */
export type Access =
  | { surface: 'public' }
  /**
   * `stepUp`: a sensitive write; an admin with a second factor must have verified it within
   * `security.step_up_max_age_minutes` (40302 otherwise). `duringEnrolment`: also open to a
   * session that must first enrol a second factor (every other route refuses it, 40300).
   */
  | { surface: 'admin'; permission?: PermissionCode; stepUp?: boolean; duringEnrolment?: boolean }
  /**
   * `precondition`: the action whose e-mail / real-name requirement (settings group `access`) is checked: 40301.
   * `tokenScope`: the scope a personal access token needs here, or `none` (tokens refused, 40300).
   * Default: `read` for GET, `none` for writes; `defineRoute` fills it in (`resolveAccess`).
   */
  | { surface: 'client'; precondition?: AccessAction; tokenScope?: TokenScope | 'none' };

/** The access rule with its token scope decided: GET → `read`, a write without a declared scope → `none`. */
export function resolveAccess(access: Access, method: string): Access {
  if (access.surface !== 'client' || access.tokenScope) return access;
  return { ...access, tokenScope: method === 'get' ? 'read' : 'none' };
}

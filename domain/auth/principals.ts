import type { SessionScope } from '../../db/models/auth-session.js';
import type { TokenScope } from '../../db/models/personal-access-token.js';
import type { PermissionCode } from './permissions.js';

export type AdminPrincipal = {
  kind: 'admin';
  id: number;
  username: string;
  roleCode: string;
  isSuper: boolean;
  permissions: string[];
  sessionId: string;
  /** 'enrol': this session may only enrol a second factor (and read itself, log out). */
  sessionScope: SessionScope;
};

export type ClientPrincipal = {
  kind: 'client';
  id: number;
  sessionId: string;
  emailVerified: boolean;
  isVerified: boolean;
  /** Set when the request came with a personal access token instead of a login session. */
  token?: { id: number; scopes: readonly TokenScope[] };
};

export function adminHasPermission(admin: AdminPrincipal, permission: PermissionCode): boolean {
  return admin.isSuper || admin.permissions.includes(permission);
}

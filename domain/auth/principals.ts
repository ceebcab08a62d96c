import type { SessionScope } from '../../db/models/auth-session.js';
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
};

export function adminHasPermission(admin: AdminPrincipal, permission: PermissionCode): boolean {
  return admin.isSuper || admin.permissions.includes(permission);
}

import { z } from '@hono/zod-openapi';
import { formatDateTime } from '../../lib/time.js';
import type { AdminRoleRow, AdminRow } from '../../db/models/admin.js';
import type { UserRow } from '../../db/models/user.js';
import type { UserListItem } from '../../domain/users/users.js';
import { PERMISSION_CODES } from '../../domain/auth/permissions.js';
import { dateTimeString } from '../schemas.js';

/** Whitelist resources: only these fields of an account ever leave the API. */
export const roleSchema = z
  .object({
    id: z.number().int(),
    code: z.string(),
    name: z.string(),
    is_super: z.boolean(),
    permissions: z.array(z.string()),
  })
  .openapi('AdminRole');

export function roleResource(role: AdminRoleRow) {
  return {
    id: role.id,
    code: role.code,
    name: role.name,
    is_super: role.is_super,
    permissions: role.is_super ? [...PERMISSION_CODES] : role.permissions,
  };
}

export const adminSchema = z
  .object({
    id: z.number().int(),
    username: z.string(),
    display_name: z.string(),
    status: z.enum(['active', 'disabled']),
    role: z.object({ id: z.number().int(), code: z.string(), name: z.string() }).nullable(),
    permissions: z.array(z.string()),
    last_login_at: dateTimeString.nullable(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('Admin');

export function adminResource(admin: AdminRow) {
  const role = admin.role;
  return {
    id: admin.id,
    username: admin.username,
    display_name: admin.display_name,
    status: admin.status,
    role: role ? { id: role.id, code: role.code, name: role.name } : null,
    permissions: role ? roleResource(role).permissions : [],
    last_login_at: formatDateTime(admin.last_login_at),
    created_at: formatDateTime(admin.created_at),
  };
}

export const userSchema = z
  .object({
    id: z.number().int(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    nickname: z.string(),
    status: z.enum(['active', 'disabled']),
    email_verified: z.boolean(),
    is_verified: z.number().int(),
    verification_status: z.number().int().nullable(),
    last_login_at: dateTimeString.nullable(),
    created_at: dateTimeString.nullable(),
  })
  .openapi('User');

export function userResource(user: UserListItem | UserRow) {
  return {
    id: user.id,
    email: user.email,
    phone: user.phone,
    nickname: user.nickname,
    status: user.status,
    email_verified: user.email_verified_at !== null && user.email_verified_at !== undefined,
    is_verified: user.is_verified ?? 0,
    verification_status: user.verification_status ?? null,
    last_login_at: formatDateTime(user.last_login_at),
    created_at: formatDateTime(user.created_at),
  };
}

export const tokenSchema = {
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().openapi({ description: '有效期（秒）' }),
};

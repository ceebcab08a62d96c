import { randomBytes } from 'node:crypto';
import { hashPassword } from '../auth/passwords.js';
import type { DomainDeps } from '../deps.js';
import { SUPER_ROLE_CODE } from './roles.js';

/**
 * Makes sure the super admin role and account exist. Idempotent: an existing account keeps
 * its password. When no password is given, one is generated and returned to be shown once.
 */
export async function ensureSuperAdmin(deps: DomainDeps, input: { username: string; password?: string | undefined }) {
  return deps.db.sequelize.transaction(async (transaction) => {
    const [role] = await deps.db.models.AdminRole.findOrCreate({
      where: { code: SUPER_ROLE_CODE },
      defaults: { code: SUPER_ROLE_CODE, name: '超级管理员', permissions: [], is_super: true },
      transaction,
    });
    const existing = await deps.db.models.Admin.findOne({ where: { username: input.username }, transaction });
    if (existing) return { created: false as const, username: existing.username, password: null };
    const password = input.password ?? randomBytes(12).toString('base64url');
    await deps.db.models.Admin.create(
      {
        username: input.username,
        display_name: '超级管理员',
        password_hash: await hashPassword(password),
        role_id: role.id,
        status: 'active',
        last_login_at: null,
      },
      { transaction },
    );
    return { created: true as const, username: input.username, password: input.password ? null : password };
  });
}

import { UniqueConstraintError } from 'sequelize';
import { conflict, notFound, validationError } from '../../lib/errors.js';
import { hashPassword } from '../auth/passwords.js';
import { publishAuthChange } from '../auth/auth-events.js';
import { revokeAllSessions } from '../auth/sessions.js';
import type { DomainDeps } from '../deps.js';

export async function listAdmins(deps: DomainDeps, paging: { page: number; page_size: number }) {
  const { rows, count } = await deps.db.models.Admin.findAndCountAll({
    include: [{ association: 'role' }],
    order: [['id', 'ASC']],
    limit: paging.page_size,
    offset: (paging.page - 1) * paging.page_size,
  });
  return { rows, total: count };
}

async function assertRole(deps: DomainDeps, roleId: number) {
  const role = await deps.db.models.AdminRole.findByPk(roleId);
  if (!role) throw validationError({ role_id: ['角色不存在'] });
  return role;
}

export async function createAdmin(
  deps: DomainDeps,
  input: { username: string; password: string; role_id: number; display_name?: string | undefined },
) {
  await assertRole(deps, input.role_id);
  try {
    const admin = await deps.db.models.Admin.create({
      username: input.username,
      display_name: input.display_name ?? input.username,
      password_hash: await hashPassword(input.password),
      role_id: input.role_id,
      status: 'active',
      last_login_at: null,
    });
    return (await deps.db.models.Admin.findByPk(admin.id, { include: [{ association: 'role' }] })) ?? admin;
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw conflict('管理员用户名已存在');
    throw err;
  }
}

/**
 * Updates another admin's profile, role, status or password. An admin cannot disable or
 * demote themselves, so the platform never locks out the account in use.
 */
export async function updateAdmin(
  deps: DomainDeps,
  actorId: number,
  id: number,
  input: {
    display_name?: string | undefined;
    role_id?: number | undefined;
    status?: 'active' | 'disabled' | undefined;
    password?: string | undefined;
  },
) {
  const admin = await deps.db.models.Admin.findByPk(id);
  if (!admin) throw notFound('管理员不存在');
  if (id === actorId && (input.status === 'disabled' || (input.role_id !== undefined && input.role_id !== admin.role_id))) {
    throw conflict('不能禁用自己或修改自己的角色');
  }
  if (input.role_id !== undefined) admin.role_id = (await assertRole(deps, input.role_id)).id;
  if (input.display_name !== undefined) admin.display_name = input.display_name;
  if (input.status !== undefined) admin.status = input.status;
  if (input.password !== undefined) admin.password_hash = await hashPassword(input.password);
  await deps.db.sequelize.transaction(async (transaction) => {
    await admin.save({ transaction });
    if (input.status === 'disabled' || input.password !== undefined) await revokeAllSessions(deps, 'admin', id, transaction);
    else await publishAuthChange(deps, { surface: 'admin', subject_id: id }, transaction);
  });
  return (await deps.db.models.Admin.findByPk(id, { include: [{ association: 'role' }] })) ?? admin;
}

import { UniqueConstraintError } from 'sequelize';
import { conflict, notFound, validationError } from '../../lib/errors.js';
import { isPermissionCode } from '../auth/permissions.js';
import { publishAuthChange } from '../auth/auth-events.js';
import type { DomainDeps } from '../deps.js';

export const SUPER_ROLE_CODE = 'super_admin';

function assertPermissions(permissions: string[]): string[] {
  const unknown = permissions.filter((p) => !isPermissionCode(p));
  if (unknown.length > 0) throw validationError({ permissions: [`未知的权限代码：${unknown.join('、')}`] });
  return [...new Set(permissions)].sort();
}

export async function listRoles(deps: DomainDeps) {
  return deps.db.models.AdminRole.findAll({ order: [['id', 'ASC']] });
}

export async function createRole(deps: DomainDeps, input: { code: string; name: string; permissions: string[] }) {
  try {
    return await deps.db.models.AdminRole.create({
      code: input.code,
      name: input.name,
      permissions: assertPermissions(input.permissions),
      is_super: false,
    });
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw conflict('角色代码已存在');
    throw err;
  }
}

export async function updateRole(deps: DomainDeps, id: number, input: { name?: string | undefined; permissions?: string[] | undefined }) {
  const role = await deps.db.models.AdminRole.findByPk(id);
  if (!role) throw notFound('角色不存在');
  if (role.is_super) throw conflict('超级管理员角色拥有全部权限，不能修改');
  if (input.name !== undefined) role.name = input.name;
  if (input.permissions !== undefined) role.permissions = assertPermissions(input.permissions);
  await deps.db.sequelize.transaction(async (transaction) => {
    await role.save({ transaction });
    await publishAuthChange(deps, { all: true }, transaction);
  });
  return role;
}

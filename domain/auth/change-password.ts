import { AppError, ErrorCode, notFound, validationError } from '../../lib/errors.js';
import type { Surface } from '../../db/models/auth-session.js';
import type { DomainDeps } from '../deps.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { revokeAllSessions } from './sessions.js';

/**
 * Changes the caller's own password after checking the current one, and revokes every
 * session of the account, the current one included: all devices sign in again.
 */
export async function changeOwnPassword(
  deps: DomainDeps,
  surface: Surface,
  subjectId: number,
  input: { old_password: string; new_password: string },
): Promise<void> {
  const { Admin, User } = deps.db.models;
  const row = surface === 'admin' ? await Admin.findByPk(subjectId) : await User.findByPk(subjectId);
  if (!row) throw notFound('账号不存在');
  if (!(await verifyPassword(row.password_hash, input.old_password))) {
    throw validationError({ old_password: ['当前密码不正确'] });
  }
  if (input.old_password === input.new_password) {
    throw validationError({ new_password: ['新密码不能与当前密码相同'] });
  }
  const passwordHash = await hashPassword(input.new_password);
  await deps.db.sequelize.transaction(async (transaction) => {
    const values = { password_hash: passwordHash };
    const options = { where: { id: subjectId }, transaction };
    const [updated] = surface === 'admin' ? await Admin.update(values, options) : await User.update(values, options);
    if (updated !== 1) throw new AppError(ErrorCode.CONFLICT, '密码修改失败，请重试');
    await revokeAllSessions(deps, surface, subjectId, transaction);
  });
}

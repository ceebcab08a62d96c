import type { AccessAction } from '../../lib/config.js';
import { AppError, ErrorCode, notFound } from '../../lib/errors.js';
import { sqlOne } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { readAccessSettings } from '../verification/settings.js';

export type { AccessAction } from '../../lib/config.js';

/**
 * The one 40301 guard. Settings group `access` decides which actions (`purchase`, `recharge`,
 * `withdrawal`, `ticket`) need a verified e-mail and which a real-name verification; this reads
 * the user's current state (not the cached principal) and throws 40301 (HTTP 403) naming what is
 * missing in `data.required` (`email`, `real_name`). Routes get it through `access: { surface:
 * 'client', precondition: '<action>' }` (defineRoute); other code calls it directly before the
 * action's first write: `await requireVerified(deps, userId, 'withdrawal')`.
 */
export async function requireVerified(deps: DomainDeps, userId: number, action: AccessAction): Promise<void> {
  const settings = await readAccessSettings(deps);
  const needEmail = settings.emailRequiredFor.includes(action);
  const needRealName = settings.realNameRequiredFor.includes(action);
  if (!needEmail && !needRealName) return;
  const user = await sqlOne<{ email_verified: boolean; is_verified: number }>(
    deps,
    'SELECT email_verified_at IS NOT NULL AS email_verified, is_verified FROM users WHERE id = $1',
    [userId],
  );
  if (!user) throw notFound('用户不存在');
  const required: Array<'email' | 'real_name'> = [];
  if (needEmail && !user.email_verified) required.push('email');
  if (needRealName && user.is_verified !== 1) required.push('real_name');
  if (required.length === 0) return;
  const what = required.map((r) => (r === 'email' ? '邮箱验证' : '实名认证')).join('和');
  throw new AppError(ErrorCode.PRECONDITION_REQUIRED, `请先完成${what}后再进行此操作`, { action, required });
}

import { Op } from 'sequelize';
import { AppError, ErrorCode } from '../../lib/errors.js';
import type { Surface } from '../../db/models/auth-session.js';
import type { DomainDeps } from '../deps.js';
import type { RequestMeta } from './sessions.js';

export type LoginAttempt = {
  surface: Surface;
  account: string;
  subjectId: number | null;
  success: boolean;
  reason: string;
};

/** Every attempt, good or bad, lands in the login log; the throttle counts from the same table. */
export async function recordLoginAttempt(deps: DomainDeps, attempt: LoginAttempt, meta: RequestMeta): Promise<void> {
  await deps.db.models.LoginLog.create({
    surface: attempt.surface,
    account: attempt.account.slice(0, 191),
    subject_id: attempt.subjectId,
    ip: meta.ip.slice(0, 64),
    user_agent: meta.userAgent.slice(0, 255),
    success: attempt.success,
    reason: attempt.reason,
  });
}

/**
 * Refuses a login once an account, or an IP, has failed too often within the window. Kept in
 * PostgreSQL so that every API instance sees the same counts.
 */
export async function assertLoginAllowed(deps: DomainDeps, surface: Surface, account: string, meta: RequestMeta) {
  const { maxFailuresPerAccount, maxFailuresPerIp, windowSeconds } = deps.config.loginThrottle;
  const since = new Date(Date.now() - windowSeconds * 1000);
  const failed = { success: false, created_at: { [Op.gte]: since } };
  const [byAccount, byIp] = await Promise.all([
    deps.db.models.LoginLog.count({ where: { ...failed, surface, account } }),
    meta.ip ? deps.db.models.LoginLog.count({ where: { ...failed, ip: meta.ip } }) : Promise.resolve(0),
  ]);
  if (byAccount >= maxFailuresPerAccount || byIp >= maxFailuresPerIp) {
    await recordLoginAttempt(deps, { surface, account, subjectId: null, success: false, reason: 'throttled' }, meta);
    const minutes = Math.ceil(windowSeconds / 60);
    throw new AppError(ErrorCode.TOO_MANY_REQUESTS, `登录失败次数过多，请 ${minutes} 分钟后再试`);
  }
}

import { UniqueConstraintError } from 'sequelize';
import { conflict } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';
import { openReferralAccountAtRegistration } from '../marketing/referral-accounts.js';
import { hashPassword } from './passwords.js';
import { issueSession, type RequestMeta } from './sessions.js';

/**
 * Registers a client by e-mail and signs them in; the e-mail stays unverified until confirmed.
 * A referral code binds the new user to its owner, once (marketing's referral account).
 */
export async function registerClient(
  deps: DomainDeps,
  input: { email: string; password: string; nickname?: string | undefined; referralCode?: string | undefined },
  meta: RequestMeta,
) {
  const email = input.email.trim().toLowerCase();
  const passwordHash = await hashPassword(input.password);
  try {
    return await deps.db.sequelize.transaction(async (transaction) => {
      const user = await deps.db.models.User.create(
        { email, phone: null, nickname: input.nickname?.trim() || email.split('@')[0] || '', password_hash: passwordHash, status: 'active' },
        { transaction },
      );
      await openReferralAccountAtRegistration(deps, user.id, input.referralCode ?? null, transaction);
      const token = await issueSession(deps, 'client', user.id, meta, transaction);
      return { user, token };
    });
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw conflict('该邮箱已注册');
    throw err;
  }
}

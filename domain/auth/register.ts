import { UniqueConstraintError } from 'sequelize';
import { constantTimeEqual } from '../../lib/crypto.js';
import { conflict, forbidden } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';
import { openReferralAccountAtRegistration } from '../marketing/referral-accounts.js';
import { registrationSettings } from '../settings/groups/registration.js';
import { readSettings } from '../settings/settings.js';
import { hashPassword } from './passwords.js';
import { issueSession, type RequestMeta } from './sessions.js';

/**
 * Registration is open unless an admin closed it (`registration.enabled`); then only a request
 * carrying the configured invite code gets through. Wrong, missing or unset code: one answer.
 */
async function assertRegistrationOpen(deps: DomainDeps, inviteCode: string | undefined): Promise<void> {
  const settings = await readSettings(deps, registrationSettings);
  if (settings.enabled) return;
  if (settings.invite_code !== '' && inviteCode !== undefined && constantTimeEqual(inviteCode, settings.invite_code)) return;
  throw forbidden('本站暂停开放注册');
}

/**
 * Registers a client by e-mail and signs them in; the e-mail stays unverified until confirmed.
 * A referral code binds the new user to its owner, once (marketing's referral account).
 */
export async function registerClient(
  deps: DomainDeps,
  input: { email: string; password: string; nickname?: string | undefined; invite_code?: string | undefined; referralCode?: string | undefined },
  meta: RequestMeta,
) {
  await assertRegistrationOpen(deps, input.invite_code);
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

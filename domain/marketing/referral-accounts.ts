import { randomInt } from 'node:crypto';
import { validationError } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';
import { sqlOne, type Tx } from '../../db/sql.js';
import { REFERRAL_ACCOUNT_COLUMNS, type ReferralAccountRecord } from '../../db/models/marketing.js';

/** Referral codes: 8 characters without the look-alikes (0/O, 1/I/L). */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const REFERRAL_CODE_PATTERN = /^[A-Za-z0-9]{4,16}$/;

function newCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/**
 * Opens the user's referral account with a fresh unique code (a no-op when it exists). `ON
 * CONFLICT DO NOTHING` rather than catching a unique violation, so it is safe inside a
 * caller's transaction; a taken code just draws another.
 */
async function openAccount(deps: DomainDeps, userId: number, referrerId: number | null, tx?: Tx): Promise<ReferralAccountRecord> {
  for (let attempt = 0; attempt < 8; attempt++) {
    await sqlOne(
      deps,
      `INSERT INTO referral_accounts (user_id, code, referrer_id, bound_at) VALUES ($1, $2, $3, CASE WHEN $3::int IS NULL THEN NULL ELSE now() END)
       ON CONFLICT DO NOTHING RETURNING user_id`,
      [userId, newCode(), referrerId],
      tx,
    );
    const found = await sqlOne<ReferralAccountRecord>(deps, `SELECT ${REFERRAL_ACCOUNT_COLUMNS} FROM referral_accounts WHERE user_id = $1`, [userId], tx);
    if (found) return found;
  }
  throw new Error(`no referral code could be drawn for user ${userId}`);
}

/** The user's referral account, opened on first use (users registered before referrals existed). */
export function ensureReferralAccount(deps: DomainDeps, userId: number, tx?: Tx): Promise<ReferralAccountRecord> {
  return openAccount(deps, userId, null, tx);
}

/**
 * At registration, in its transaction: the new user's account, bound to the owner of
 * `referralCode` when one is given (unknown code: 42200 on `referral_code`). The binding is
 * written once here and never again: no route changes it and a trigger refuses any UPDATE of
 * `referrer_id`; a user can never be their own referrer (CHECK).
 */
export async function openReferralAccountAtRegistration(deps: DomainDeps, userId: number, referralCode: string | null, tx: Tx): Promise<ReferralAccountRecord> {
  let referrerId: number | null = null;
  if (referralCode) {
    const code = referralCode.trim().toUpperCase();
    const owner = REFERRAL_CODE_PATTERN.test(code)
      ? await sqlOne<{ user_id: number }>(deps, 'SELECT user_id FROM referral_accounts WHERE code = $1', [code], tx)
      : null;
    if (!owner || owner.user_id === userId) throw validationError({ referral_code: ['邀请码不存在'] });
    referrerId = owner.user_id;
  }
  return openAccount(deps, userId, referrerId, tx);
}

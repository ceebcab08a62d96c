import type { DomainDeps } from '../deps.js';

export type ReferralConfig = {
  /** Days a commission stays `pending` before it can be withdrawn. */
  holdingDays: number;
  /** Commission rate (percent) when neither the product nor the referrer's member level sets one. */
  defaultCommissionRate: string;
  withdrawalMin: string;
  withdrawalMax: string;
  /** Total of one user's withdrawals (not rejected) per calendar day (Asia/Shanghai). */
  withdrawalDailyLimit: string;
};

export const REFERRAL_DEFAULTS: ReferralConfig = {
  holdingDays: 7,
  defaultCommissionRate: '5.00',
  withdrawalMin: '10.00',
  withdrawalMax: '5000.00',
  withdrawalDailyLimit: '10000.00',
};

/**
 * The referral configuration, read in one place. Until the settings kernel (`domain/settings/`)
 * is on main these are the defaults above; then this function reads the `referral` settings
 * group (`domain/settings/groups/referral.ts`) and nothing else changes.
 */
export async function readReferralConfig(_deps: DomainDeps): Promise<ReferralConfig> {
  return REFERRAL_DEFAULTS;
}

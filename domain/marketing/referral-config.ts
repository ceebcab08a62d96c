import type { DomainDeps } from '../deps.js';
import { referralSettings } from '../settings/groups/referral.js';
import { readSettings } from '../settings/settings.js';

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

/** The defaults of the `referral` settings group (route descriptions quote them). */
export const REFERRAL_DEFAULTS: ReferralConfig = {
  holdingDays: 7,
  defaultCommissionRate: '5.00',
  withdrawalMin: '10.00',
  withdrawalMax: '5000.00',
  withdrawalDailyLimit: '10000.00',
};

/** The referral configuration: the `referral` settings group (`domain/settings/groups/referral.ts`), read in one place. */
export async function readReferralConfig(deps: DomainDeps): Promise<ReferralConfig> {
  const s = await readSettings(deps, referralSettings);
  return {
    holdingDays: s.holding_days,
    defaultCommissionRate: s.default_commission_rate,
    withdrawalMin: s.withdrawal_min,
    withdrawalMax: s.withdrawal_max,
    withdrawalDailyLimit: s.withdrawal_daily_limit,
  };
}

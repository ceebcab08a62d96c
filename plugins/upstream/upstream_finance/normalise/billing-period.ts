import { BILLING_PERIODS, type BillingPeriod } from '../../../../lib/catalogue-contract.js';

export { BILLING_PERIODS, type BillingPeriod };

const CYCLE_ALIASES: Record<string, BillingPeriod> = {
  monthly: 'monthly',
  month: 'monthly',
  quarterly: 'quarterly',
  quarter: 'quarterly',
  semiannually: 'semiannually',
  semiannual: 'semiannually',
  halfyear: 'semiannually',
  half_year: 'semiannually',
  annually: 'annually',
  annual: 'annually',
  yearly: 'annually',
  year: 'annually',
  biennially: 'biennially',
  biennial: 'biennially',
  triennially: 'triennially',
  triennial: 'triennially',
  onetime: 'onetime',
  one_time: 'onetime',
  free: 'onetime',
};

/** Our billing period for an upstream cycle name; null for cycles we do not sell (hour, day, …). */
export function toBillingPeriod(cycle: string): BillingPeriod | null {
  return CYCLE_ALIASES[cycle.trim().toLowerCase()] ?? null;
}

/** The upstream cycle name for each of our billing periods (this upstream family uses the same words). */
const UPSTREAM_CYCLES: Record<BillingPeriod, string> = {
  monthly: 'monthly',
  quarterly: 'quarterly',
  semiannually: 'semiannually',
  annually: 'annually',
  biennially: 'biennially',
  triennially: 'triennially',
  onetime: 'onetime',
};

export function toUpstreamCycle(period: BillingPeriod): string {
  return UPSTREAM_CYCLES[period];
}

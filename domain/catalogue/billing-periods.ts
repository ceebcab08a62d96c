import { BILLING_PERIODS, type BillingPeriod } from '../../lib/catalogue-contract.js';

export { BILLING_PERIODS, type BillingPeriod };

const DEFINITIONS: Record<BillingPeriod, { label: string; months: number | null }> = {
  monthly: { label: '月付', months: 1 },
  quarterly: { label: '季付', months: 3 },
  semiannually: { label: '半年付', months: 6 },
  annually: { label: '年付', months: 12 },
  biennially: { label: '两年付', months: 24 },
  triennially: { label: '三年付', months: 36 },
  onetime: { label: '一次性', months: null },
};

export function isBillingPeriod(value: unknown): value is BillingPeriod {
  return typeof value === 'string' && (BILLING_PERIODS as readonly string[]).includes(value);
}

export function billingPeriodLabel(period: BillingPeriod): string {
  return DEFINITIONS[period].label;
}

/** Months a period buys; null for `onetime` (no due date). */
export function billingPeriodMonths(period: BillingPeriod): number | null {
  return DEFINITIONS[period].months;
}

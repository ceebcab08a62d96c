import { formatMoney } from '../../../../lib/money.js';
import { asString } from '../read.js';
import type { PricingMap } from '../../../../lib/catalogue-contract.js';
import { toBillingPeriod } from './billing-period.js';

export type { PricingMap };

const AMOUNT = /^-?\d{1,12}(\.\d+)?$/;

/** A two-digit decimal string (half-up); null when absent, malformed or negative (switched off). */
export function normaliseAmount(value: unknown): string | null {
  const text = asString(value)?.trim();
  if (!text || !AMOUNT.test(text) || text.startsWith('-')) return null;
  return formatMoney(text);
}

/** A flat map billing period → amount from upstream (cycle, amount) pairs; unknown cycles dropped. */
export function normalisePricing(entries: Iterable<[string, unknown]>): PricingMap {
  const pricing: PricingMap = {};
  for (const [cycle, amount] of entries) {
    const period = toBillingPeriod(cycle);
    const value = normaliseAmount(amount);
    if (period && value !== null && pricing[period] === undefined) pricing[period] = value;
  }
  return pricing;
}

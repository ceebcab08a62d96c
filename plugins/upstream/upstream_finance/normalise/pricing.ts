import { parseUpstreamAmount } from '../../../../lib/money.js';
import type { PricingMap } from '../../../../lib/catalogue-contract.js';
import { toBillingPeriod } from './billing-period.js';

export type { PricingMap };


/** A flat map billing period → amount from upstream (cycle, amount) pairs; unknown cycles dropped. */
export function normalisePricing(entries: Iterable<[string, unknown]>): PricingMap {
  const pricing: PricingMap = {};
  for (const [cycle, amount] of entries) {
    const period = toBillingPeriod(cycle);
    const value = parseUpstreamAmount(amount);
    if (period && value !== null && pricing[period] === undefined) pricing[period] = value;
  }
  return pricing;
}

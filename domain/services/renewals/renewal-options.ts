import { formatMoney } from '../../../lib/money.js';
import { BILLING_PERIODS, type BillingPeriod, billingPeriodLabel, billingPeriodMonths, isBillingPeriod } from '../../catalogue/billing-periods.js';
import type { ConfigOptionItem } from '../../catalogue/config-options.js';
import type { PricingMap } from '../../catalogue/pricing-map.js';
import { priceSelection } from '../../catalogue/pricing.js';
import type { Tx } from '../../../db/sql.js';
import { sqlOne } from '../../../db/sql.js';
import type { DomainDeps } from '../../deps.js';
import { extendDueDate, renewalBase } from './renewal-rules.js';

export type RenewableService = {
  product_id: number;
  billing_period: string;
  price: string;
  config: Record<string, { value?: unknown }>;
  next_due_at: Date | null;
};

export type RenewalOption = {
  billing_period: BillingPeriod;
  label: string;
  months: number;
  amount: string;
  /** The service's own period, renewed at its locked price. */
  is_current: boolean;
  next_due_at: Date;
};

type ProductForPricing = { name: string; display_name: string; pricing: PricingMap; config_options: ConfigOptionItem[] };

/**
 * The periods a service can renew for, shortest first. Its own period at its locked `price`
 * (what it was bought for, whatever the catalogue says now); every other period the product
 * still sells (product on sale, period priced), priced now by `priceSelection` with the
 * service's configuration, one instance. A period that no longer prices the configuration (an
 * option removed) is left out. `onetime` never renews.
 */
export async function renewalOptions(deps: DomainDeps, service: RenewableService, tx?: Tx, now = new Date()): Promise<RenewalOption[]> {
  const base = renewalBase(service.next_due_at, now);
  const option = (period: BillingPeriod, amount: string, isCurrent: boolean): RenewalOption => {
    const months = billingPeriodMonths(period) ?? 0;
    return { billing_period: period, label: billingPeriodLabel(period), months, amount: formatMoney(amount), is_current: isCurrent, next_due_at: extendDueDate(base, months) };
  };
  const options: RenewalOption[] = [];
  const current = service.billing_period;
  if (isBillingPeriod(current) && current !== 'onetime') options.push(option(current, service.price, true));
  else return options;

  const product = await sqlOne<ProductForPricing>(
    deps,
    `SELECT name, display_name, pricing, config_options FROM products WHERE id = $1 AND deleted_at IS NULL AND status = 'active'`,
    [service.product_id],
    tx,
  );
  if (product) {
    const visible = new Set(product.config_options.filter((o) => !o.hidden).map((o) => o.field));
    const config = Object.fromEntries(Object.entries(service.config).filter(([field]) => visible.has(field as ConfigOptionItem['field'])).map(([field, c]) => [field, c?.value]));
    for (const period of BILLING_PERIODS) {
      if (period === 'onetime' || period === current || product.pricing[period] === undefined) continue;
      try {
        const priced = priceSelection({ name: product.display_name || product.name, pricing: product.pricing, config_options: product.config_options }, { billingPeriod: period, config, quantity: 1 });
        options.push(option(period, priced.total_amount, false));
      } catch {
        // The configuration no longer prices in this period: not offered.
      }
    }
  }
  return options.sort((a, b) => a.months - b.months);
}

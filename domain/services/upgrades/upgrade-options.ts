import { isQuantityOptionType } from '../../catalogue/config-options.js';
import type { DomainDeps } from '../../deps.js';
import { AppError } from '../../../lib/errors.js';
import { formatMoney, money } from '../../../lib/money.js';
import { sqlOne } from '../../../db/sql.js';
import { type Proration, prorate } from './proration.js';
import { changeableOptions, loadUpgradeContext, optionValues, priceChange, type PricedChange, valueLabel } from './upgrade-pricing.js';

export type UpgradeChoice = { value: number; label: string; current: boolean; new_price: string | null; price_difference: string | null; prorated_amount: string | null };

export type UpgradeOption = {
  field: string;
  name: string;
  kind: 'choice' | 'quantity';
  unit: string;
  min: number | null;
  max: number | null;
  current: { value: number | null; label: string };
  choices: UpgradeChoice[];
};

export type UpgradeOptions = {
  service_id: number;
  billing_period: string;
  locked_price: string;
  /** The period as the proration sees it today (prices at the current configuration). */
  period: Pick<Proration, 'period_start' | 'due_date' | 'today' | 'days_in_period' | 'days_left'>;
  options: UpgradeOption[];
  /** The unpaid change of the service, if any (pay or cancel it before another one). */
  pending_invoice_no: string | null;
};

/**
 * What the product allows from the current configuration: every changeable option with each of
 * its other values priced by `priceChange` (one option changed, the others kept): the new
 * period price, the difference to the locked price, and what it costs (or credits) today.
 */
export async function listUpgradeOptions(deps: DomainDeps, input: { serviceId: number; userId: number }, now: Date = new Date()): Promise<UpgradeOptions> {
  const ctx = await loadUpgradeContext(deps, input.serviceId, input.userId);
  const pending = await sqlOne<{ invoice_no: string }>(
    deps,
    `SELECT invoice_no FROM invoices WHERE service_id = $1 AND type = 'upgrade' AND status = 'unpaid' LIMIT 1`,
    [ctx.service.id],
  );
  const base = prorate({ oldPrice: ctx.service.price, newPrice: ctx.service.price, dueAt: ctx.dueAt, months: ctx.months, now });
  const options = changeableOptions(ctx.product).map((option): UpgradeOption => {
    const currentValue = ctx.service.config[option.field]?.value;
    const current = typeof currentValue === 'number' ? currentValue : null;
    const quantity = isQuantityOptionType(option.option_type);
    const choices = optionValues(option).map((value): UpgradeChoice => {
      const label = valueLabel(option, value);
      if (value === current) return { value, label, current: true, new_price: null, price_difference: null, prorated_amount: null };
      let priced: PricedChange | null = null;
      try {
        priced = priceChange(ctx, { [option.field]: value }, now);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
      }
      return {
        value,
        label,
        current: false,
        new_price: priced?.proration.new_price ?? null,
        price_difference: priced ? formatMoney(money(priced.proration.new_price).minus(priced.proration.old_price)) : null,
        prorated_amount: priced?.proration.difference ?? null,
      };
    });
    return {
      field: option.field,
      name: option.name,
      kind: quantity ? 'quantity' : 'choice',
      unit: option.unit,
      min: quantity ? option.qty_minimum : null,
      max: quantity ? option.qty_maximum : null,
      current: { value: current, label: current === null ? '' : valueLabel(option, current) },
      choices,
    };
  });
  return {
    service_id: ctx.service.id,
    billing_period: ctx.period,
    locked_price: base.old_price,
    period: { period_start: base.period_start, due_date: base.due_date, today: base.today, days_in_period: base.days_in_period, days_left: base.days_left },
    options,
    pending_invoice_no: pending?.invoice_no ?? null,
  };
}

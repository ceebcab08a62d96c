import type { Decimal } from 'decimal.js';
import { type FieldErrors, validationError } from '../../lib/errors.js';
import { formatMoney, money, sumMoney } from '../../lib/money.js';
import { type BillingPeriod, billingPeriodLabel, isBillingPeriod } from './billing-periods.js';
import { type ConfigOptionItem, type ConfigSubOption, isConfigOptionField, isQuantityOptionType } from './config-options.js';
import type { PricingMap } from './pricing-map.js';

/** How many instances one quote (and one purchase invoice) may cover. */
export const MAX_QUOTE_QUANTITY = 20;

export type PricedProduct = { name: string; pricing: PricingMap; config_options: ConfigOptionItem[] };

export type Selection = { billingPeriod: unknown; config: unknown; quantity: unknown };

/** One priced item; `unit_amount` is the price for one instance, `amount` for all of them. */
export type QuoteLine = { key: string; label: string; unit_amount: string; quantity: number; amount: string };

/** What was chosen per field: a sub-option id (choices) or a number (quantity options). */
export type SelectedConfig = Record<string, { value: number; label: string }>;

export type PricedSelection = {
  billing_period: BillingPeriod;
  quantity: number;
  config: SelectedConfig;
  lines: QuoteLine[];
  total_amount: string;
};

function readInteger(value: unknown): number | null {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : null;
}

/** The tier of a quantity option that prices `qty`: the first whose range contains it. */
function tierFor(option: ConfigOptionItem, qty: number): ConfigSubOption | null {
  return option.sub.find((s) => (s.qty_minimum ?? 0) <= qty && qty <= (s.qty_maximum ?? Number.MAX_SAFE_INTEGER)) ?? null;
}

type OptionPrice = { value: number; label: string; unit: Decimal | null };

function priceOption(option: ConfigOptionItem, raw: unknown, period: BillingPeriod, add: (message: string) => void): OptionPrice | null {
  if (isQuantityOptionType(option.option_type)) {
    const qty = raw === undefined ? option.qty_minimum : readInteger(raw);
    if (qty === null || qty < option.qty_minimum || qty > option.qty_maximum) {
      add(`${option.name}的数量必须是 ${option.qty_minimum} 到 ${option.qty_maximum} 之间的整数`);
      return null;
    }
    const tier = tierFor(option, qty);
    const perUnit = tier?.pricing[period];
    const label = `${option.name}：${qty}${option.unit ? ` ${option.unit}` : ''}`;
    return { value: qty, label, unit: perUnit === undefined || qty === 0 ? null : money(perUnit).times(qty) };
  }
  const id = raw === undefined ? (option.sub[0]?.id ?? null) : readInteger(raw);
  const sub = id === null ? undefined : option.sub.find((s) => s.id === id);
  if (!sub) {
    add(`${option.name}的选项不存在，请选择有效的子选项编号`);
    return null;
  }
  const price = sub.pricing[period];
  return { value: sub.id, label: `${option.name}：${sub.label}`, unit: price === undefined ? null : money(price) };
}

/**
 * The one pricing function: quotes and invoices both go through it, so they cannot disagree.
 * Base price of the period, plus each chosen sub-option's price for the period (per unit for
 * quantity options, priced by the tier containing the quantity), all times the number of
 * instances; every amount exact (decimal.js, two digits). Options not in `config` take their
 * default (first sub-option, or the minimum quantity); hidden options always do, and choosing
 * one is refused. Bad input → 42200 naming the field.
 */
export function priceSelection(product: PricedProduct, selection: Selection): PricedSelection {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);

  const period = selection.billingPeriod;
  const base = isBillingPeriod(period) ? product.pricing[period] : undefined;
  if (!isBillingPeriod(period) || base === undefined) add('billing_period', '该商品不支持此计费周期');

  const quantity = selection.quantity === undefined ? 1 : readInteger(selection.quantity);
  if (quantity === null || quantity < 1 || quantity > MAX_QUOTE_QUANTITY) add('quantity', `购买数量必须是 1 到 ${MAX_QUOTE_QUANTITY} 之间的整数`);

  const config = selection.config === undefined || selection.config === null ? {} : selection.config;
  if (typeof config !== 'object' || Array.isArray(config)) {
    add('config', '配置必须是以配置项字段为键的对象');
    throw validationError(errors);
  }
  const chosen = config as Record<string, unknown>;
  for (const key of Object.keys(chosen)) {
    const option = isConfigOptionField(key) ? product.config_options.find((o) => o.field === key) : undefined;
    if (!option) add(`config.${key}`, `商品没有配置项 ${key}`);
    else if (option.hidden) add(`config.${key}`, `配置项 ${option.name} 不可选择`);
  }
  // Options are checked even when the period is bad, so one answer names every bad field.
  const pricedPeriod: BillingPeriod = isBillingPeriod(period) ? period : 'monthly';
  const options = product.config_options.map((option) => ({
    option,
    // A hidden option is not offered to the buyer: it always takes its default.
    priced: priceOption(option, option.hidden ? undefined : chosen[option.field], pricedPeriod, (m) => add(`config.${option.field}`, m)),
  }));
  if (Object.keys(errors).length > 0 || !isBillingPeriod(period) || base === undefined || quantity === null) throw validationError(errors);

  const lines: QuoteLine[] = [];
  const line = (key: string, label: string, unit: Decimal) =>
    lines.push({ key, label, unit_amount: formatMoney(unit), quantity, amount: formatMoney(unit.times(quantity)) });
  line('base', `${product.name}（${billingPeriodLabel(period)}）`, money(base));
  const selected: SelectedConfig = {};
  for (const { option, priced } of options) {
    if (!priced) continue;
    selected[option.field] = { value: priced.value, label: priced.label };
    if (priced.unit !== null) line(`config.${option.field}`, priced.label, priced.unit);
  }

  return {
    billing_period: period,
    quantity,
    config: selected,
    lines,
    total_amount: formatMoney(sumMoney(lines.map((l) => l.amount))),
  };
}

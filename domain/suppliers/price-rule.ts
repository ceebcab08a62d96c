import { validationError } from '../../lib/errors.js';
import { formatMoney, money, MONEY_PATTERN } from '../../lib/money.js';
import type { ConfigOptionItem } from '../catalogue/config-options.js';
import type { PricingMap } from '../catalogue/pricing-map.js';

/**
 * How an imported product's prices are derived from the supplier's: `percent` multiplies every
 * amount (base and option prices) by 1 + value/100; `fixed` adds value to each base price only.
 * Results are rounded half-up to cents. Stored on the binding so a re-sync applies the same rule.
 */
export type PriceRule = { type: 'percent' | 'fixed'; value: string };

export const NO_MARKUP: PriceRule = { type: 'percent', value: '0' };

export function parsePriceRule(value: unknown): PriceRule {
  if (value === undefined || value === null) return NO_MARKUP;
  const rule = value as { type?: unknown; value?: unknown };
  const amount = typeof rule.value === 'number' ? String(rule.value) : typeof rule.value === 'string' ? rule.value.trim() : '';
  if ((rule.type !== 'percent' && rule.type !== 'fixed') || !MONEY_PATTERN.test(amount) || amount.startsWith('-')) {
    throw validationError({ price_rule: ['加价规则必须是 {type: percent|fixed, value: 不小于 0 的数字，最多两位小数}'] });
  }
  if (rule.type === 'percent' && money(amount).greaterThan(1000)) throw validationError({ 'price_rule.value': ['加价比例不能超过 1000%'] });
  return { type: rule.type, value: amount };
}

function markUp(amount: string, rule: PriceRule, isBase: boolean): string {
  if (rule.type === 'percent') return formatMoney(money(amount).times(money(rule.value).div(100).plus(1)));
  return isBase ? formatMoney(money(amount).plus(rule.value)) : amount;
}

export function applyPriceRule(pricing: PricingMap, rule: PriceRule, isBase = true): PricingMap {
  return Object.fromEntries(Object.entries(pricing).map(([period, amount]) => [period, markUp(amount, rule, isBase)]));
}

export function applyPriceRuleToOptions(options: ConfigOptionItem[], rule: PriceRule): ConfigOptionItem[] {
  return options.map((o) => ({ ...o, sub: o.sub.map((s) => ({ ...s, pricing: applyPriceRule(s.pricing, rule, false) })) }));
}

import { type FieldErrors, validationError } from '../../lib/errors.js';
import { formatMoney, MONEY_PATTERN } from '../../lib/money.js';
import type { PricingMap } from '../../lib/catalogue-contract.js';
import { BILLING_PERIODS, type BillingPeriod, isBillingPeriod } from './billing-periods.js';

export type { PricingMap };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks a pricing map and collects problems under `path` (e.g. `pricing`,
 * `config_options.0.sub.1.pricing`). Only the flat form is accepted: the nested form
 * (`{ monthly: { price: … } }`) and unknown periods are refused, never read as zero.
 */
export function checkPricingMap(value: unknown, path: string, errors: FieldErrors): PricingMap {
  const add = (key: string, message: string) => (errors[key] ??= []).push(message);
  if (!isPlainObject(value)) {
    add(path, '价格必须是以计费周期为键、金额字符串为值的对象');
    return {};
  }
  const pricing: PricingMap = {};
  for (const [period, amount] of Object.entries(value)) {
    const key = `${path}.${period}`;
    if (!isBillingPeriod(period)) {
      add(key, `不支持的计费周期 ${period}，只能是：${BILLING_PERIODS.join('、')}`);
      continue;
    }
    if (isPlainObject(amount) || Array.isArray(amount)) {
      add(key, '价格必须是金额字符串，不能是嵌套对象');
      continue;
    }
    const text = typeof amount === 'number' && Number.isFinite(amount) ? String(amount) : typeof amount === 'string' ? amount.trim() : null;
    if (text === null || !MONEY_PATTERN.test(text) || text.startsWith('-')) {
      add(key, '价格必须是不小于 0 的金额，最多两位小数');
      continue;
    }
    pricing[period] = formatMoney(text);
  }
  return pricing;
}

/** A pricing map or a 42200 naming each bad period. */
export function parsePricingMap(value: unknown, path = 'pricing'): PricingMap {
  const errors: FieldErrors = {};
  const pricing = checkPricingMap(value, path, errors);
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return pricing;
}

/** The price of the first period the map has, in the order of BILLING_PERIODS (the list's "from" price). */
export function primaryPrice(pricing: PricingMap): { billing_period: BillingPeriod; amount: string } | null {
  for (const period of BILLING_PERIODS) {
    const amount = pricing[period];
    if (amount !== undefined) return { billing_period: period, amount };
  }
  return null;
}

/** SQL for the primary price of a pricing map column (same order as `primaryPrice`), for sorting. */
export function primaryPriceSql(column: string): string {
  return `COALESCE(${BILLING_PERIODS.map((p) => `(${column}->>'${p}')::numeric`).join(', ')})`;
}

import { Decimal } from 'decimal.js';

/** Money is exact: decimal.js with two fraction digits, half-up, never a JS number. */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type Money = Decimal;

export const CURRENCY = 'CNY' as const;

/** Amount pattern accepted on the wire: optional sign, integer part, at most two fraction digits. */
export const MONEY_PATTERN = /^-?\d{1,12}(\.\d{1,2})?$/;

export function money(value: Decimal.Value): Decimal {
  return new Money(value);
}

/** Parses wire input (string or JSON number) into money; null when it is not a valid amount. */
export function parseMoney(value: unknown): Decimal | null {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    value = String(value);
  }
  if (typeof value !== 'string' || !MONEY_PATTERN.test(value.trim())) return null;
  return new Money(value.trim());
}

/** The wire and column form: a decimal string with exactly two digits. */
export function formatMoney(value: Decimal.Value): string {
  return new Money(value).toFixed(2, Decimal.ROUND_HALF_UP);
}

export function sumMoney(values: Decimal.Value[]): Decimal {
  return values.reduce<Decimal>((acc, v) => acc.plus(v), new Money(0));
}

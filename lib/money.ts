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

/**
 * The one reading of an amount a supplier answered (docs/economics.md "Upstream amounts"): a
 * string or a finite JSON number; surrounding spaces trimmed; digits (at most 12 before the point)
 * with an optional fraction, no sign, no thousands separators, no exponent; more than two fraction
 * digits rounded half-up (as a NUMERIC(…,2) column stores them); zero is an amount. Answers the
 * two-digit string, or null when absent or anything else: null is "unknown", never zero, and a
 * negative figure (the upstream's `-1` for a switched-off price) is not an amount.
 */
export function parseUpstreamAmount(value: unknown): string | null {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : typeof value === 'string' ? value.trim() : '';
  return UPSTREAM_AMOUNT.test(text) ? formatMoney(text) : null;
}

const UPSTREAM_AMOUNT = /^\d{1,12}(\.\d+)?$/;

/** The wire and column form: a decimal string with exactly two digits. */
export function formatMoney(value: Decimal.Value): string {
  return new Money(value).toFixed(2, Decimal.ROUND_HALF_UP);
}

export function sumMoney(values: Decimal.Value[]): Decimal {
  return values.reduce<Decimal>((acc, v) => acc.plus(v), new Money(0));
}

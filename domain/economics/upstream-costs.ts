import { formatMoney, MONEY_PATTERN } from '../../lib/money.js';

/**
 * What each sale cost us (docs/economics.md): one `upstream_costs` row per paid upstream bill,
 * written by the statement that records the upstream payment (`recordUpstreamPaid`,
 * domain/upstream-work/cost.ts), so it exists exactly when the payment is recorded and never
 * twice (UNIQUE per our invoice and service, and per supplier and upstream bill).
 */
export const UPSTREAM_COST_KINDS = ['provision', 'renew', 'traffic_package', 'upgrade'] as const;
export type UpstreamCostKind = (typeof UPSTREAM_COST_KINDS)[number];

/** An amount as an upstream answer gave it: a two-digit string, or null when absent or malformed (never zero for "missing"). */
export function upstreamAmount(value: unknown): string | null {
  if (typeof value !== 'string' || !MONEY_PATTERN.test(value.trim()) || value.trim().startsWith('-')) return null;
  return formatMoney(value.trim());
}

/** The first amount the answers carried, in the order given. */
export function firstAmount(...values: unknown[]): string | null {
  for (const value of values) {
    const amount = upstreamAmount(value);
    if (amount !== null) return amount;
  }
  return null;
}

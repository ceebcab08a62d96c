import { SERVICE_ORDER_KINDS } from '../../db/models/service-order.js';
import { parseUpstreamAmount } from '../../lib/money.js';

/**
 * What each sale cost us (docs/economics.md): one `upstream_costs` row per paid upstream bill,
 * written by the statement that records the upstream payment (`recordUpstreamPaid`,
 * domain/upstream-work/cost.ts), so it exists exactly when the payment is recorded and never
 * twice (UNIQUE per our invoice and service, and per supplier and upstream bill).
 */
export const UPSTREAM_COST_KINDS = ['provision', ...SERVICE_ORDER_KINDS] as const;
export type UpstreamCostKind = (typeof UPSTREAM_COST_KINDS)[number];

/** The first amount the answers carried, in the order given (each read by `parseUpstreamAmount`). */
export function firstAmount(...values: unknown[]): string | null {
  for (const value of values) {
    const amount = parseUpstreamAmount(value);
    if (amount !== null) return amount;
  }
  return null;
}

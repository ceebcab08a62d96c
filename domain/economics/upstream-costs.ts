import { sqlRows, statement, type Tx } from '../../db/sql.js';
import { SERVICE_ORDER_KINDS } from '../../db/models/service-order.js';
import { parseUpstreamAmount } from '../../lib/money.js';
import type { DomainDeps } from '../deps.js';
import { callSupplier } from '../suppliers/supplier-call.js';

/**
 * What each sale cost us (docs/economics.md): one `upstream_costs` row per paid upstream bill,
 * written by the statement (or in the transaction) that records the upstream payment, so it
 * exists exactly when the payment is recorded and never twice (UNIQUE per our invoice and
 * service, and per supplier and upstream bill).
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

/**
 * The settled bill's amount when no answer of the step carried one: `upstream.check_order` asked
 * once. Null when it does not answer an amount either (the cost is then recorded as unknown).
 */
export async function checkedBillAmount(deps: DomainDeps, supplierId: number, upstreamInvoiceId: number, traceId: string): Promise<string | null> {
  const data = await callSupplier(deps, supplierId, 'upstream.check_order', { invoice_id: upstreamInvoiceId }, { traceId });
  const invoice = data['invoice'];
  return typeof invoice === 'object' && invoice !== null ? parseUpstreamAmount((invoice as Record<string, unknown>)['total']) : null;
}

/**
 * A provisioning's upstream bill is paid: the binding's `upstream_paid_at` (guarded: only the
 * first writer) and the cost row, in one statement. The amount falls back to the one the settle
 * answer left on the binding.
 */
const RECORD_PROVISION_PAID = statement(
  `WITH paid AS (
     UPDATE service_upstream_bindings SET upstream_paid_at = now(), updated_at = now()
      WHERE service_id = $1 AND upstream_paid_at IS NULL
      RETURNING service_id, supplier_id, product_id, upstream_amount)
   INSERT INTO upstream_costs (service_id, invoice_id, supplier_id, product_id, kind, upstream_invoice_id, amount, via)
   SELECT paid.service_id, s.invoice_id, paid.supplier_id, paid.product_id, 'provision', $2, COALESCE($3::numeric, paid.upstream_amount), $4
     FROM paid JOIN services s ON s.id = paid.service_id
   ON CONFLICT (service_id, invoice_id) DO NOTHING
   RETURNING amount::text AS amount`,
);

export async function recordProvisionPaid(
  deps: DomainDeps,
  input: { serviceId: number; upstreamInvoiceId: number; amount: string | null; via: 'paid' | 'reconciled' },
): Promise<{ recorded: boolean; amount: string | null }> {
  const rows = await sqlRows<{ amount: string | null }>(deps, RECORD_PROVISION_PAID, [input.serviceId, input.upstreamInvoiceId, input.amount, input.via]);
  return { recorded: rows.length > 0, amount: rows[0]?.amount ?? null };
}

/** The cost row of a service order, inside the transaction that records its upstream bill paid. */
const RECORD_ORDER_COST = statement(
  `INSERT INTO upstream_costs (service_id, invoice_id, supplier_id, product_id, kind, upstream_invoice_id, amount, via)
   SELECT s.id, $2, $3, s.product_id, $4, $5, $6::numeric, $7 FROM services s WHERE s.id = $1
   ON CONFLICT (service_id, invoice_id) DO NOTHING
   RETURNING id`,
);

export async function recordServiceOrderCost(
  deps: DomainDeps,
  cost: { serviceId: number; invoiceId: number; supplierId: number; kind: UpstreamCostKind; upstreamInvoiceId: number; amount: string | null; via: 'paid' | 'reconciled' },
  tx: Tx,
): Promise<void> {
  await sqlRows(deps, RECORD_ORDER_COST, [cost.serviceId, cost.invoiceId, cost.supplierId, cost.kind, cost.upstreamInvoiceId, cost.amount, cost.via], tx);
}

import { sqlOne, type Statement, statement } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { parseUpstreamAmount } from '../../lib/money.js';
import { firstAmount } from '../economics/upstream-costs.js';
import { callSupplier } from '../suppliers/supplier-call.js';
import { homeSql, type UpstreamWorkRef, WORK_HOMES, type WorkHomeName } from './kinds.js';
import type { StepCall } from './pay-bill.js';

/**
 * What each sale cost us (docs/economics.md), recorded once for every kind of upstream work: one
 * `upstream_costs` row per paid upstream bill, written by the statement that marks the bill paid
 * on the work (guarded: only the first writer), so it exists exactly when the payment is recorded
 * and never twice (UNIQUE per our invoice and service, and per supplier and upstream bill).
 */

/**
 * The guarded paid mark of each home, returning what the cost row needs: a provisioning's on its
 * upstream binding (the product as bound), a service order's on its row (the service's product).
 */
const PAID_MARK: Record<WorkHomeName, string> = {
  service: `UPDATE service_upstream_bindings w SET upstream_paid_at = now(), updated_at = now()
      FROM services s
     WHERE w.service_id = $1 AND s.id = w.service_id AND w.upstream_paid_at IS NULL
     RETURNING w.service_id, s.invoice_id, w.supplier_id, w.product_id, ${homeSql(WORK_HOMES.service).kind}::text AS kind, w.upstream_amount,
               ${homeSql(WORK_HOMES.service).eventKind} AS event_kind`,
  service_order: `UPDATE service_orders w SET upstream_paid_at = now(), updated_at = now()
      FROM services s
     WHERE w.invoice_id = $1 AND s.id = w.service_id AND w.upstream_paid_at IS NULL
     RETURNING w.service_id, w.invoice_id, w.supplier_id, s.product_id, ${homeSql(WORK_HOMES.service_order).kind}::text AS kind, w.upstream_amount,
               ${homeSql(WORK_HOMES.service_order).eventKind} AS event_kind`,
};

/**
 * The mark, the cost row (the amount given, else the one recorded with the bill; null when
 * neither: cost unknown, never zero) and, for a home that shows its payment as a history row
 * (`paidRow`), that row: one statement, so all or nothing.
 */
const RECORD_PAID = Object.fromEntries(
  (Object.keys(PAID_MARK) as WorkHomeName[]).map((home) => [
    home,
    statement(
      `WITH paid AS (${PAID_MARK[home]}),
       cost AS (
         INSERT INTO upstream_costs (service_id, invoice_id, supplier_id, product_id, kind, upstream_invoice_id, amount, via)
         SELECT service_id, invoice_id, supplier_id, product_id, kind, $2::bigint, COALESCE($3::numeric, upstream_amount), $4::text FROM paid
         ON CONFLICT (service_id, invoice_id) DO NOTHING
         RETURNING amount),
       event AS (
         INSERT INTO service_events (service_id, kind, stage, status, message, detail, workflow_id, operator_type)
         SELECT service_id, event_kind, 'upstream_pay', 'succeeded', $5::text,
                jsonb_build_object('upstream_invoice_id', $2::bigint, 'via', $4::text, 'amount', COALESCE($3::numeric, upstream_amount)::text), $6::text, 'system'
           FROM paid WHERE $7::boolean
         RETURNING id)
       SELECT EXISTS (SELECT 1 FROM paid) AS recorded, (SELECT amount::text FROM cost) AS amount`,
    ),
  ]),
) as Record<WorkHomeName, Statement>;

/** Whether a home shows the payment of its bill as a row of the work's history (a provisioning shows its stages instead). */
const PAID_ROW: Record<WorkHomeName, boolean> = { service: false, service_order: true };

/**
 * The upstream bill of a piece of upstream work is paid: recorded once, with what it cost, for
 * every kind (the guarded mark and the cost row in one statement; a second call records nothing).
 */
export async function recordUpstreamPaid(
  deps: DomainDeps,
  work: UpstreamWorkRef,
  input: { billId: number; amount: string | null; via: 'paid' | 'reconciled'; workflowId: string },
): Promise<{ recorded: boolean; amount: string | null }> {
  const message = input.via === 'reconciled' ? `核对确认上游账单 #${input.billId} 已支付` : `上游账单 #${input.billId} 已支付`;
  const row = await sqlOne<{ recorded: boolean; amount: string | null }>(deps, RECORD_PAID[work.home], [
    work.id,
    input.billId,
    input.amount,
    input.via,
    message,
    input.workflowId,
    PAID_ROW[work.home],
  ]);
  return { recorded: row?.recorded ?? false, amount: row?.amount ?? null };
}

/**
 * The settled bill's amount when no answer of the step carried one: `upstream.check_order` asked
 * once. Null when it does not answer an amount either (the cost is then recorded as unknown).
 */
export async function checkedBillAmount(deps: DomainDeps, call: StepCall, upstreamInvoiceId: number): Promise<string | null> {
  const data = await callSupplier(deps, call.supplierId, 'upstream.check_order', { invoice_id: upstreamInvoiceId }, { traceId: call.traceId, ...(call.timeoutMs ? { timeoutMs: call.timeoutMs } : {}) });
  const invoice = data['invoice'];
  return typeof invoice === 'object' && invoice !== null ? parseUpstreamAmount((invoice as Record<string, unknown>)['total']) : null;
}

/** What the work already recorded of its bill: its amount, and whether it is marked paid. */
const PAID_STATE: Record<WorkHomeName, Statement> = {
  service: statement('SELECT upstream_amount::text AS upstream_amount, upstream_paid_at FROM service_upstream_bindings WHERE service_id = $1'),
  service_order: statement('SELECT upstream_amount::text AS upstream_amount, upstream_paid_at FROM service_orders WHERE invoice_id = $1'),
};

/**
 * After a pay step paid (or found paid) the work's upstream bill, for every kind: unless the work
 * is marked paid already, the amount is the one an answer carried (`answered`), else the one
 * recorded with the bill, else `check_order` asked once; unknown (null), never zero, when none
 * answers. Then `recordUpstreamPaid`.
 */
export async function recordBillPaid(
  deps: DomainDeps,
  work: UpstreamWorkRef,
  input: { call: StepCall; billId: number; answered: string | null; via: 'paid' | 'reconciled' },
): Promise<void> {
  const state = await sqlOne<{ upstream_amount: string | null; upstream_paid_at: Date | null }>(deps, PAID_STATE[work.home], [work.id]);
  if (!state || state.upstream_paid_at !== null) return;
  const amount = firstAmount(input.answered, state.upstream_amount) ?? (await checkedBillAmount(deps, input.call, input.billId));
  await recordUpstreamPaid(deps, work, { billId: input.billId, amount, via: input.via, workflowId: input.call.traceId });
}

import { UniqueConstraintError } from 'sequelize';
import type { ServiceOrderRow } from '../../../db/models/service-order.js';
import { parseUpstreamAmount } from '../../../lib/money.js';
import type { DomainDeps } from '../../deps.js';
import { recordOrderEvent } from './order-record.js';
import { UpstreamStepError } from '../../suppliers/supplier-call.js';
import { callUpstreamStep, STEP_INVOKE_TIMEOUT_MS } from './upstream-step.js';
import { checkUpstreamBillById, readUpstreamBill, type UpstreamBill } from '../pay-bill.js';
import { UPSTREAM_WORK_KINDS } from '../kinds.js';

export type { UpstreamBill };

/** The order's upstream target: refused (permanent) when the order has none. */
export function upstreamTarget(order: ServiceOrderRow): { supplierId: number; hostId: number } {
  if (order.supplier_id === null || order.upstream_host_id === null) {
    throw new UpstreamStepError('permanent', 'no_upstream', '订单没有上游主机，无法向上游下单');
  }
  return { supplierId: order.supplier_id, hostId: order.upstream_host_id };
}

/** One upstream bill by id (null when the upstream does not know it). */
export async function checkUpstreamBill(deps: DomainDeps, order: ServiceOrderRow, upstreamInvoiceId: number, traceId: string): Promise<UpstreamBill | null> {
  const { supplierId } = upstreamTarget(order);
  return checkUpstreamBillById(deps, { supplierId, traceId, timeoutMs: STEP_INVOKE_TIMEOUT_MS }, upstreamInvoiceId);
}

/**
 * Reconciliation after a committing request that may have gone through: the newest unpaid bill
 * of the order's kind among the host's bills. The upstream answers a repeated renewal of the
 * same cycle (or purchase of the same package) with that same bill, and only one order of a
 * kind runs per service, so an unpaid bill of the kind found there is ours.
 */
export async function findOpenUpstreamBill(deps: DomainDeps, order: ServiceOrderRow, traceId: string): Promise<UpstreamBill | null> {
  const { supplierId, hostId } = upstreamTarget(order);
  const data = await callUpstreamStep(deps, supplierId, 'upstream.check_order', { host_id: hostId }, traceId);
  const bills = (Array.isArray(data['invoices']) ? data['invoices'] : []).map(readUpstreamBill).filter((b): b is UpstreamBill => b !== null);
  return bills.find((b) => b.kind === UPSTREAM_WORK_KINDS[order.kind].order.billKind && !b.paid && (b.status === 'unpaid' || b.status === 'partially_paid')) ?? null;
}

/**
 * Records the upstream bill on the order before anything pays it (UNIQUE per supplier: a bill
 * recorded for another order is refused for good). `via` says how it was found.
 */
export async function recordUpstreamBill(
  deps: DomainDeps,
  order: ServiceOrderRow,
  bill: { invoiceId: number; amount: unknown },
  via: 'requested' | 'reconciled',
  workflowId: string,
): Promise<void> {
  const amount = parseUpstreamAmount(bill.amount);
  try {
    await deps.db.sequelize.transaction(async (transaction) => {
      const [updated] = await deps.db.models.ServiceOrder.update(
        { upstream_invoice_id: bill.invoiceId, upstream_amount: amount },
        { where: { id: order.id, upstream_invoice_id: null }, transaction },
      );
      if (updated === 0) return;
      await recordOrderEvent(
        deps,
        order,
        {
          stage: 'upstream_bill',
          status: 'info',
          message: via === 'reconciled' ? `核对上游账单后沿用已有账单 #${bill.invoiceId}` : `上游账单 #${bill.invoiceId} 已记录`,
          detail: { upstream_invoice_id: bill.invoiceId, amount, via },
          workflowId,
        },
        transaction,
      );
    });
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw new UpstreamStepError('permanent', 'upstream_invoice_taken', `上游账单 #${bill.invoiceId} 已属于另一笔订单，请核对后处理`);
    throw err;
  }
}

/** A recorded bill the upstream cancelled (or no longer knows): forgotten, so the next request asks for a new one. */
export async function forgetUpstreamBill(deps: DomainDeps, order: ServiceOrderRow, status: string, workflowId: string): Promise<void> {
  await deps.db.sequelize.transaction(async (transaction) => {
    await deps.db.models.ServiceOrder.update(
      { upstream_invoice_id: null, upstream_amount: null, upstream_requested_at: null, upstream_pay_requested_at: null },
      { where: { id: order.id, upstream_paid_at: null }, transaction },
    );
    await recordOrderEvent(
      deps,
      order,
      {
        stage: 'upstream_bill',
        status: 'info',
        message: `上游账单 #${order.upstream_invoice_id ?? ''} 已失效（${status}），将重新申请`,
        detail: { upstream_invoice_id: order.upstream_invoice_id, status },
        workflowId,
      },
      transaction,
    );
  });
}

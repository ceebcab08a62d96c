import type { DomainDeps } from '../../deps.js';
import { loadServiceOrder } from './order-record.js';
import { checkUpstreamBill, findOpenUpstreamBill, forgetUpstreamBill, recordUpstreamBill, upstreamTarget } from './upstream-bills.js';
import { UpstreamStepError } from '../../suppliers/supplier-call.js';
import { callUpstreamStep } from './upstream-step.js';

/**
 * The upstream bill of an order, asked for at most once per need and recorded before anything
 * pays it. A recorded bill is reused (checked first on a re-run: a bill the upstream cancelled
 * is forgotten and a new one asked for). When an earlier request may have gone through (its
 * marker is set but no bill was recorded), the host's bills are looked at first and an unpaid
 * one of the kind is taken. Otherwise the marker is written, then `upstream.host_renew` (period)
 * or `upstream.traffic_package_buy` (package) asks for the bill.
 */
export async function requestUpstreamBill(deps: DomainDeps, input: { invoiceId: number; workflowId: string }): Promise<{ upstreamInvoiceId: number }> {
  let order = await loadServiceOrder(deps, input.invoiceId);
  const { supplierId, hostId } = upstreamTarget(order);
  if (order.upstream_invoice_id !== null) {
    if (order.upstream_paid_at !== null) return { upstreamInvoiceId: order.upstream_invoice_id };
    const bill = await checkUpstreamBill(deps, order, order.upstream_invoice_id, input.workflowId);
    if (bill && bill.status !== 'cancelled' && bill.status !== 'refunded') return { upstreamInvoiceId: order.upstream_invoice_id };
    await forgetUpstreamBill(deps, order, bill?.status ?? 'missing', input.workflowId);
    order = await loadServiceOrder(deps, input.invoiceId);
  }
  if (order.upstream_requested_at !== null) {
    const open = await findOpenUpstreamBill(deps, order, input.workflowId);
    if (open) {
      await recordUpstreamBill(deps, order, { invoiceId: open.invoice_id, amount: open.total }, 'reconciled', input.workflowId);
      return { upstreamInvoiceId: open.invoice_id };
    }
  }
  await deps.db.models.ServiceUpstreamOrder.update({ upstream_requested_at: new Date() }, { where: { id: order.id } });
  const data =
    order.kind === 'renew'
      ? await callUpstreamStep(deps, supplierId, 'upstream.host_renew', { host_id: hostId, billing_period: order.billing_period }, input.workflowId)
      : await callUpstreamStep(deps, supplierId, 'upstream.traffic_package_buy', { host_id: hostId, package_id: order.package_id }, input.workflowId);
  const upstreamInvoiceId = data['invoice_id'];
  if (typeof upstreamInvoiceId !== 'number') throw new UpstreamStepError('ambiguous', 'unexpected_response', '上游未返回账单编号，处理结果未知');
  await recordUpstreamBill(deps, order, { invoiceId: upstreamInvoiceId, amount: data['amount'] }, 'requested', input.workflowId);
  return { upstreamInvoiceId };
}

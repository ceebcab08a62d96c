import type { DomainDeps } from '../../deps.js';
import { sendOnce } from '../../suppliers/send-once.js';
import { serviceOrderWork } from '../kinds.js';
import { workJournal } from '../record.js';
import { loadServiceOrder, orderMark } from './order-record.js';
import { checkUpstreamBill, findOpenUpstreamBill, forgetUpstreamBill, recordUpstreamBill, upstreamTarget } from './upstream-bills.js';
import { UpstreamStepError } from '../../suppliers/supplier-call.js';
import { callUpstreamStep } from './upstream-step.js';
import { UPSTREAM_WORK_KINDS } from '../kinds.js';

/** A bill the upstream gave for the request: its id and amount as it answered them. */
type AskedBill = { invoiceId: number; amount: unknown };

/**
 * The upstream bill of an order, asked for at most once per need (sent once:
 * domain/suppliers/send-once.ts) and recorded before anything pays it. A recorded bill is reused
 * (checked first on a re-run: a bill the upstream cancelled is forgotten and a new one asked
 * for). When an earlier request may have gone through (its mark is set but no bill was
 * recorded), the host's bills are looked at first and an unpaid one of the kind is taken.
 * Otherwise the kind's own request asks for the bill (`request` of its folder: `upstream.host_renew`
 * with the period, `upstream.traffic_package_buy` with the package, `upstream.host_upgrade` with
 * the target configuration).
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
  const current = order;
  const got = await sendOnce<AskedBill>(deps, {
    mark: orderMark(current.id, 'upstream_requested_at'),
    reconcile: async () => {
      const open = await findOpenUpstreamBill(deps, current, input.workflowId);
      return open ? { invoiceId: open.invoice_id, amount: open.total } : null;
    },
    journal: { record: workJournal(deps, serviceOrderWork(input.invoiceId), input.workflowId), found: (bill) => `找到上次申请的上游账单 #${bill.invoiceId}，沿用，不再重复申请` },
    send: async () => {
      const request = await UPSTREAM_WORK_KINDS[current.kind].order.request(deps, current, hostId);
      const data = await callUpstreamStep(deps, supplierId, request.action, request.payload, input.workflowId);
      const invoiceId = data['invoice_id'];
      if (typeof invoiceId !== 'number') throw new UpstreamStepError('ambiguous', 'unexpected_response', '上游未返回账单编号，处理结果未知');
      return { invoiceId, amount: data['amount'] };
    },
  });
  await recordUpstreamBill(deps, current, got.value, got.via === 'reconciled' ? 'reconciled' : 'requested', input.workflowId);
  return { upstreamInvoiceId: got.value.invoiceId };
}

import type { DomainDeps } from '../../deps.js';
import { serviceOrderWork } from '../kinds.js';
import { payUpstreamBillOnce } from '../pay-bill.js';
import { workJournal } from '../record.js';
import { loadServiceOrder, orderMark } from './order-record.js';
import { upstreamTarget } from './upstream-bills.js';
import { UpstreamStepError } from '../../suppliers/supplier-call.js';
import { STEP_INVOKE_TIMEOUT_MS } from './upstream-step.js';
import { recordBillPaid } from '../cost.js';

/**
 * Pays the recorded upstream bill from the supplier balance, once (`payUpstreamBillOnce`, the
 * kernel's one payment of an upstream bill: a voided bill is a permanent failure, an admin retry
 * asks for a new one). What the bill cost is recorded with the payment, as for every kind
 * (`recordBillPaid`, ../cost.ts: the amount of the check or pay answer, else the one recorded
 * with the bill, else `check_order` asked once), with its row of the order's history.
 */
export async function payUpstreamBill(deps: DomainDeps, input: { invoiceId: number; workflowId: string }): Promise<{ paid: true }> {
  const order = await loadServiceOrder(deps, input.invoiceId);
  if (order.upstream_paid_at !== null) return { paid: true };
  const { supplierId } = upstreamTarget(order);
  const billId = order.upstream_invoice_id;
  if (billId === null) throw new UpstreamStepError('permanent', 'no_upstream_bill', '尚未记录上游账单，无法支付');
  const call = { supplierId, traceId: input.workflowId, timeoutMs: STEP_INVOKE_TIMEOUT_MS };
  const paid = await payUpstreamBillOnce(deps, {
    call,
    billId,
    mark: orderMark(order.id, 'upstream_pay_requested_at'),
    journal: workJournal(deps, serviceOrderWork(input.invoiceId), input.workflowId),
    voidHint: '请重试以重新申请',
  });
  await recordBillPaid(deps, serviceOrderWork(input.invoiceId), { call, billId, answered: paid.amount, via: paid.via });
  return { paid: true };
}

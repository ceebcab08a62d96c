import type { DomainDeps } from '../../deps.js';
import { sendOnce } from '../../suppliers/send-once.js';
import { serviceOrderWork } from '../../upstream-work/kinds.js';
import { workJournal } from '../../upstream-work/record.js';
import { loadServiceOrder, orderMark } from './order-record.js';
import { checkUpstreamBill, markUpstreamBillPaid, upstreamTarget } from './upstream-bills.js';
import { UpstreamStepError } from '../../suppliers/supplier-call.js';
import { callUpstreamStep } from './upstream-step.js';
import { checkedBillAmount, firstAmount } from '../../economics/upstream-costs.js';

const VOID = ['cancelled', 'refunded'];

/**
 * Pays the recorded upstream bill from the supplier balance, once (domain/suppliers/send-once.ts).
 * When an earlier payment may have gone through (its mark is set), the bill is checked first:
 * paid means done. A bill the upstream voided is a permanent failure (an admin retry asks for a
 * new one); a partly applied payment is transient (the next attempt pays the rest; a paid bill
 * answers "paid" and nothing moves). What the bill cost is recorded with the payment
 * (`markUpstreamBillPaid`): the amount of the check or pay answer, else the one recorded with the
 * bill, else `check_order` asked once; unknown (null), never zero, when none answers.
 */
export async function payUpstreamBill(deps: DomainDeps, input: { invoiceId: number; workflowId: string }): Promise<{ paid: true }> {
  const order = await loadServiceOrder(deps, input.invoiceId);
  if (order.upstream_paid_at !== null) return { paid: true };
  const { supplierId } = upstreamTarget(order);
  const billId = order.upstream_invoice_id;
  if (billId === null) throw new UpstreamStepError('permanent', 'no_upstream_bill', '尚未记录上游账单，无法支付');
  let answered: string | null = null;
  const voided = () => new UpstreamStepError('permanent', 'upstream_bill_void', `上游账单 #${billId} 已取消或不存在，请重试以重新申请`);
  const got = await sendOnce(deps, {
    mark: orderMark(order.id, 'upstream_pay_requested_at'),
    reconcile: async () => {
      const bill = await checkUpstreamBill(deps, order, billId, input.workflowId);
      if (bill?.paid) {
        answered = firstAmount(bill.total);
        return true;
      }
      if (!bill || VOID.includes(bill.status)) throw voided();
      return null;
    },
    journal: { record: workJournal(deps, serviceOrderWork(input.invoiceId), input.workflowId), found: () => `上游账单 #${billId} 已支付，不再重复支付` },
    send: async () => {
      const data = await callUpstreamStep(deps, supplierId, 'upstream.invoice_pay', { invoice_id: billId }, input.workflowId);
      if (data['paid'] === true) {
        answered = firstAmount(data['amount']);
        return true;
      }
      if (typeof data['status'] === 'string' && VOID.includes(data['status'])) throw voided();
      throw new UpstreamStepError('transient', 'upstream_bill_unpaid', `上游账单 #${billId} 尚未付清，稍后重试`);
    },
  });
  const amount = firstAmount(answered, order.upstream_amount) ?? (await checkedBillAmount(deps, supplierId, billId, input.workflowId));
  await markUpstreamBillPaid(deps, order, got.via === 'reconciled' ? 'reconciled' : 'paid', input.workflowId, amount);
  return { paid: true };
}

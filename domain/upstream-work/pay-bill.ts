import type { DomainDeps } from '../deps.js';
import { firstAmount } from '../economics/upstream-costs.js';
import { type SentMark, sendOnce } from '../suppliers/send-once.js';
import type { StepJournal } from '../suppliers/step-journal.js';
import { callSupplier, UpstreamStepError } from '../suppliers/supplier-call.js';

/** An upstream bill as `upstream.check_order` describes it. */
export type UpstreamBill = { invoice_id: number; kind: string; status: string; paid: boolean; total: string | null };

/** Statuses of a bill the upstream voided: it will never be paid. */
const VOID_STATUSES: readonly string[] = ['cancelled', 'refunded'];

/** Refusals of a payment that do not say why (a plain business error, an unknown bill): the bill is asked for. */
const UNEXPLAINED_REFUSALS: readonly string[] = ['business_error', 'not_found'];

/** A bill of a `check_order` answer (null when the answer holds none). */
export function readUpstreamBill(value: unknown): UpstreamBill | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v['invoice_id'] !== 'number') return null;
  return {
    invoice_id: v['invoice_id'],
    kind: typeof v['kind'] === 'string' ? v['kind'] : 'other',
    status: typeof v['status'] === 'string' ? v['status'] : 'unknown',
    paid: v['paid'] === true,
    total: typeof v['total'] === 'string' ? v['total'] : null,
  };
}

/** How an upstream step calls its supplier: the workflow id as trace id, and the step's timeout if it has one. */
export type StepCall = { supplierId: number; traceId: string; timeoutMs?: number };

/** One upstream bill by id (null when the upstream does not know it). */
export async function checkUpstreamBillById(deps: DomainDeps, call: StepCall, billId: number): Promise<UpstreamBill | null> {
  try {
    const data = await callSupplier(deps, call.supplierId, 'upstream.check_order', { invoice_id: billId }, { traceId: call.traceId, ...(call.timeoutMs ? { timeoutMs: call.timeoutMs } : {}) });
    return readUpstreamBill(data['invoice']);
  } catch (err) {
    if (err instanceof UpstreamStepError && err.code === 'not_found') return null;
    throw err;
  }
}

/**
 * Pays an upstream bill from the supplier balance, once, for every kind of upstream work
 * (provisioning and service orders): `sendOnce` with the work's mark (docs/fulfilment.md "Send
 * once"). When a payment may have been sent before (the mark is set), the bill is checked first:
 * paid means done. A bill the upstream voided (cancelled, refunded, or no longer known), whether
 * the check, the pay answer or the pay's refusal says so, is a permanent failure
 * `upstream_bill_void` (`voidHint` tells the admin what a retry does); a bill still unpaid after
 * a plain answer (a partial payment) is transient: the next attempt pays the rest. Answers how it
 * ended and the bill's amount when an answer carried it (recording the payment is the caller's,
 * with its guarded mark).
 */
export async function payUpstreamBillOnce(
  deps: DomainDeps,
  input: { call: StepCall; billId: number; mark: SentMark; journal: StepJournal; voidHint: string },
): Promise<{ via: 'paid' | 'reconciled'; amount: string | null }> {
  const { call, billId } = input;
  let answered: string | null = null;
  const voided = () => new UpstreamStepError('permanent', 'upstream_bill_void', `上游账单 #${billId} 已取消或不存在，${input.voidHint}`);
  const isVoid = (bill: UpstreamBill | null) => bill === null || VOID_STATUSES.includes(bill.status);
  const got = await sendOnce(deps, {
    mark: input.mark,
    reconcile: async () => {
      const bill = await checkUpstreamBillById(deps, call, billId);
      if (bill?.paid) {
        answered = firstAmount(bill.total);
        return true;
      }
      if (isVoid(bill)) throw voided();
      return null;
    },
    journal: { record: input.journal, found: () => `上游账单 #${billId} 已支付，不再重复支付` },
    send: async () => {
      let data: Record<string, unknown>;
      try {
        data = await callSupplier(deps, call.supplierId, 'upstream.invoice_pay', { invoice_id: billId }, { traceId: call.traceId, ...(call.timeoutMs ? { timeoutMs: call.timeoutMs } : {}) });
      } catch (err) {
        // A refusal that does not say why: a voided bill is told apart from other refusals by asking for it.
        if (err instanceof UpstreamStepError && err.kind === 'permanent' && UNEXPLAINED_REFUSALS.includes(err.code)) {
          const bill = await checkUpstreamBillById(deps, call, billId).catch(() => undefined);
          if (bill !== undefined && isVoid(bill)) throw voided();
        }
        throw err;
      }
      if (data['paid'] === true) {
        answered = firstAmount(data['amount']);
        return true;
      }
      if (typeof data['status'] === 'string' && VOID_STATUSES.includes(data['status'])) throw voided();
      throw new UpstreamStepError('transient', 'upstream_bill_unpaid', `上游账单 #${billId} 尚未付清，稍后重试`);
    },
  });
  return { via: got.via === 'reconciled' ? 'reconciled' : 'paid', amount: answered };
}

import type { FinanceSession } from '../client/session.js';
import { invalidInput, unexpectedResponse } from '../client/upstream-error.js';
import { normaliseHostStates, normaliseInvoice, normaliseInvoiceSummary, normaliseOrder, type InvoiceState } from '../normalise/order.js';
import { asArray, asInt, asRecord } from '../read.js';
import type { FinanceAction } from './action-types.js';

/** `GET /check_order?invoiceid=N` → the invoice's normalised state. */
export async function readInvoiceState(session: FinanceSession, invoiceId: number): Promise<InvoiceState> {
  const envelope = await session.call({ method: 'GET', path: '/check_order', query: { invoiceid: invoiceId } });
  const invoice = normaliseInvoice(asRecord(envelope.data)?.['invoice']);
  if (!invoice) throw unexpectedResponse('上游订单查询结果缺少账单信息');
  return invoice;
}

/**
 * `GET /check_order` by `invoice_id` or by `host_id` (exactly one): the order, the invoice
 * and the hosts; by host also every invoice of the host, newest first, so a renewal or
 * traffic-package bill whose answer was lost can be found.
 */
export const checkOrder: FinanceAction = async ({ input, session }) => {
  const invoiceId = asInt(input.payload['invoice_id']);
  const hostId = asInt(input.payload['host_id']);
  const byInvoice = invoiceId !== null && invoiceId > 0;
  const byHost = hostId !== null && hostId > 0;
  if (byInvoice === byHost) throw invalidInput('参数错误：invoice_id 与 host_id 需且只能提供一个正整数');
  const query: Record<string, number> = byInvoice ? { invoiceid: invoiceId } : { hostid: hostId ?? 0 };
  const envelope = await session.call({ method: 'GET', path: '/check_order', query });
  const data = asRecord(envelope.data) ?? {};
  const invoices = asArray(data['invoices']).flatMap((raw) => {
    const record = asRecord(raw);
    const summary = record ? normaliseInvoiceSummary(record) : null;
    return summary ? [summary] : [];
  });
  return {
    message: '已查询上游订单状态',
    data: { order: normaliseOrder(data['order']), invoice: normaliseInvoice(data['invoice']), hosts: normaliseHostStates(data['hosts']), invoices },
  };
};

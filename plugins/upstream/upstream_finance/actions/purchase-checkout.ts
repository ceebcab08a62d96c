import { unexpectedResponse } from '../client/upstream-error.js';
import { readIds } from '../normalise/order.js';
import { parseUpstreamAmount } from '../../../../lib/money.js';
import { asInt, asRecord } from '../read.js';
import type { FinanceAction } from './action-types.js';
import { downstreamForm, readDownstream } from './downstream.js';

/**
 * `POST /cart/settle` with the reference: the upstream order, its invoice and pending hosts.
 * The upstream recognises a repeated reference and answers the existing order. A timeout or a
 * broken answer is `ambiguous`: probe (`upstream.purchase_probe`) before settling again.
 */
export const checkoutPurchase: FinanceAction = async ({ input, session }) => {
  const reference = readDownstream(input.payload);
  const envelope = await session.call({ method: 'POST', path: '/cart/settle', form: downstreamForm(reference), commits: true });
  const data = asRecord(envelope.data) ?? {};
  const invoiceId = asInt(data['invoiceid']);
  const hostIds = readIds(data['hostid']);
  if (invoiceId === null || hostIds.length === 0) throw unexpectedResponse('上游下单结果缺少账单或主机编号，请先核对订单', 'ambiguous');
  return {
    message: '上游订单已生成',
    data: { invoice_id: invoiceId, host_ids: hostIds, host_id: hostIds[0], order_id: asInt(data['orderid']), amount: parseUpstreamAmount(data['total']) },
  };
};

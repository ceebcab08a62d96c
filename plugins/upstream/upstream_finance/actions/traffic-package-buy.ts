import { unexpectedResponse } from '../client/upstream-error.js';
import { parseUpstreamAmount } from '../../../../lib/money.js';
import { asInt, asRecord } from '../read.js';
import type { FinanceAction } from './action-types.js';
import { requirePositiveInt } from './payload.js';

/**
 * `POST /host/flowpacket/buy` (`hostid`, `fid`) → the invoice of a traffic package; settle it
 * with `upstream.invoice_pay` (paying adds the traffic). Timeout or broken answer: `ambiguous`.
 */
export const buyTrafficPackage: FinanceAction = async ({ input, session }) => {
  const hostId = requirePositiveInt(input.payload, 'host_id');
  const packageId = requirePositiveInt(input.payload, 'package_id');
  const envelope = await session.call({ method: 'POST', path: '/host/flowpacket/buy', form: { hostid: hostId, fid: packageId }, commits: true });
  const data = asRecord(envelope.data) ?? {};
  const invoiceId = asInt(data['invoiceid']);
  if (invoiceId === null) throw unexpectedResponse('上游流量包订购结果缺少账单编号，请先核对主机账单', 'ambiguous');
  return { message: '上游流量包账单已生成', data: { host_id: hostId, package_id: packageId, invoice_id: invoiceId, amount: parseUpstreamAmount(data['total']) } };
};

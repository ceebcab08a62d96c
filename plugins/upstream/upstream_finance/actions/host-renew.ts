import { unexpectedResponse } from '../client/upstream-error.js';
import { BILLING_PERIODS, toUpstreamCycle } from '../normalise/billing-period.js';
import { parseUpstreamAmount } from '../../../../lib/money.js';
import { asInt, asRecord } from '../read.js';
import type { FinanceAction } from './action-types.js';
import { requireOneOf, requirePositiveInt } from './payload.js';

const RENEWABLE_PERIODS = BILLING_PERIODS.filter((p) => p !== 'onetime');

/**
 * `POST /host/renew` (`hostid`, `billingcycle`) → the upstream renewal invoice; settle it with
 * `upstream.invoice_pay`. The upstream answers its unpaid renewal invoice again rather than a
 * second one. Timeout or broken answer: `ambiguous` (check with `upstream.check_order` by host).
 */
export const renewHost: FinanceAction = async ({ input, session }) => {
  const hostId = requirePositiveInt(input.payload, 'host_id');
  const period = requireOneOf(input.payload, 'billing_period', RENEWABLE_PERIODS);
  const envelope = await session.call({ method: 'POST', path: '/host/renew', form: { hostid: hostId, billingcycle: toUpstreamCycle(period) }, commits: true });
  const data = asRecord(envelope.data) ?? {};
  const invoiceId = asInt(data['invoiceid']);
  if (invoiceId === null) throw unexpectedResponse('上游续费结果缺少账单编号，请先核对主机账单', 'ambiguous');
  return { message: '上游续费账单已生成', data: { host_id: hostId, invoice_id: invoiceId, billing_period: period, amount: parseUpstreamAmount(data['total']) } };
};

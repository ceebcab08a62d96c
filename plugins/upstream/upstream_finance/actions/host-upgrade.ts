import { invalidInput, unexpectedResponse } from '../client/upstream-error.js';
import { parseUpstreamAmount } from '../../../../lib/money.js';
import { asInt, asRecord } from '../read.js';
import type { FinanceAction } from './action-types.js';
import { requirePositiveInt } from './payload.js';
import { readConfig } from './purchase-cart.js';

/**
 * `POST /host/upgrade` (`hostid`, `configoption[<id>]` = the whole target configuration) → the
 * upstream's upgrade invoice ("post the new config, check out the upgrade"); settle it with
 * `upstream.invoice_pay`, which applies the change. The upstream answers its unpaid upgrade
 * invoice for the same configuration again rather than a second one. Timeout or broken answer:
 * `ambiguous` (check with `upstream.check_order` by host).
 */
export const upgradeHost: FinanceAction = async ({ input, session }) => {
  const hostId = requirePositiveInt(input.payload, 'host_id');
  const config = readConfig(input.payload);
  if (Object.keys(config).length === 0) throw invalidInput('参数错误：config 不能为空');
  const envelope = await session.call({ method: 'POST', path: '/host/upgrade', form: { hostid: hostId, configoption: config }, commits: true });
  const data = asRecord(envelope.data) ?? {};
  const invoiceId = asInt(data['invoiceid']);
  if (invoiceId === null) throw unexpectedResponse('上游配置变更结果缺少账单编号，请先核对主机账单', 'ambiguous');
  return { message: '上游配置变更账单已生成', data: { host_id: hostId, invoice_id: invoiceId, amount: parseUpstreamAmount(data['total']) } };
};

import { unexpectedResponse } from '../client/upstream-error.js';
import { parseUpstreamAmount } from '../../../../lib/money.js';
import { asRecord, asString } from '../read.js';
import type { FinanceAction } from './action-types.js';

/** `GET /cart/credit` → `{ balance: "<two-digit decimal>", currency }`. */
export const readCredit: FinanceAction = async ({ session }) => {
  const envelope = await session.call({ method: 'GET', path: '/cart/credit' });
  const data = asRecord(envelope.data) ?? {};
  const balance = parseUpstreamAmount(data['credit']);
  if (balance === null) throw unexpectedResponse('上游余额数据格式不正确');
  return { message: '已获取上游账户余额', data: { balance, currency: asString(data['currency_code']) ?? 'CNY' } };
};

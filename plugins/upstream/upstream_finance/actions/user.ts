import { asInt, asRecord, asString } from '../read.js';
import { parseUpstreamAmount } from '../../../../lib/money.js';
import type { FinanceAction } from './action-types.js';

function maskPhone(phone: string): string {
  return phone.length >= 7 ? `${phone.slice(0, 3)}****${phone.slice(-4)}` : phone ? '****' : '';
}

/** `GET /v1/user` → the supplier account profile (phone masked). */
export const readUser: FinanceAction = async ({ session }) => {
  const envelope = await session.call({ method: 'GET', path: '/v1/user' });
  const user = asRecord(asRecord(envelope.data)?.['user']) ?? {};
  return {
    message: '已获取上游账户信息',
    data: {
      user: {
        id: asInt(user['id']),
        username: asString(user['username']) ?? '',
        email: asString(user['email']) ?? '',
        phone: maskPhone(asString(user['phonenumber']) ?? ''),
        credit: parseUpstreamAmount(user['credit']),
        currency: asString(user['currency_code']) ?? 'CNY',
      },
    },
  };
};

import { SANDBOX_MESSAGES } from '../messages.js';
import type { SandboxRoute } from '../route-types.js';

export const userRoute: SandboxRoute = {
  method: 'GET',
  path: '/v1/user',
  auth: 'required',
  handle({ account }) {
    return {
      status: 200,
      msg: SANDBOX_MESSAGES.ok,
      data: {
        user: {
          id: account.uid,
          username: account.username,
          email: account.email,
          phonenumber: account.phone,
          credit: account.credit,
          currency_code: 'CNY',
          certifi: { status: 1, type: 'company' },
        },
      },
    };
  },
};

export const creditRoute: SandboxRoute = {
  method: 'GET',
  path: '/cart/credit',
  auth: 'required',
  handle({ account }) {
    return { status: 200, msg: SANDBOX_MESSAGES.ok, data: { credit: account.credit, currency_code: 'CNY' } };
  },
};

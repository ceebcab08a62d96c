import { formString } from '../body.js';
import { FINANCE_SANDBOX_LOGIN_PATH, SANDBOX_MESSAGES } from '../messages.js';
import type { SandboxRoute } from '../route-types.js';
import { issueToken } from '../tokens.js';

/** `POST /finance_api_login`: `username` plus the API key as `password` (`api_key` accepted too). */
export const loginRoute: SandboxRoute = {
  method: 'POST',
  path: FINANCE_SANDBOX_LOGIN_PATH,
  auth: 'none',
  async handle({ state, body }) {
    const username = formString(body, 'username') ?? '';
    const apiKey = formString(body, 'password') ?? formString(body, 'api_key') ?? '';
    const account = state.accounts.get(username);
    if (!account || account.apiKey !== apiKey) return { status: 400, msg: SANDBOX_MESSAGES.loginFailed, data: {} };
    const jwt = await issueToken(state, account);
    state.counters.logins += 1;
    return { status: 200, msg: SANDBOX_MESSAGES.loginOk, data: { jwt }, top: { jwt } };
  },
};

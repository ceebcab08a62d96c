import { formatDateTime } from '../../../../lib/time.js';
import type { FinanceAction } from './action-types.js';

/** Logs in afresh (the credentials really work) and caches the new token. */
export const loginCheck: FinanceAction = async ({ session }) => {
  const token = await session.login();
  return { message: '上游登录成功', data: { logged_in: true, token_expires_at: formatDateTime(token.expiresAt) } };
};

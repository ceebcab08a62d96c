import type { FinanceAction } from './action-types.js';

/** Cached session (login when needed) plus an authenticated read: the supplier answers. */
export const healthCheck: FinanceAction = async ({ session }) => {
  const started = Date.now();
  await session.call({ method: 'GET', path: '/v1/user' });
  return { message: '上游接口连接正常', data: { healthy: true, latency_ms: Date.now() - started } };
};

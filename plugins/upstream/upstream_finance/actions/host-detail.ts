import { UpstreamError } from '../client/upstream-error.js';
import { normaliseHostDetail } from '../normalise/host.js';
import type { FinanceAction } from './action-types.js';
import { fetchHostData } from './host-lookup.js';
import { requirePositiveInt } from './payload.js';

/** Host detail without the password (only `has_password`); see `upstream.host_credentials`. */
export const readHostDetail: FinanceAction = async ({ input, session }) => {
  const hostId = requirePositiveInt(input.payload, 'host_id');
  const host = normaliseHostDetail(await fetchHostData(session, hostId));
  if (!host) throw new UpstreamError({ reason: 'invalid_response', kind: 'permanent', message: '上游主机详情格式不正确' });
  return { message: '已获取上游主机详情', data: { host } };
};

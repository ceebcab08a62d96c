import { unexpectedResponse } from '../client/upstream-error.js';
import { normaliseHostDetail } from '../normalise/host.js';
import { normaliseTrafficPackages } from '../normalise/traffic-package.js';
import type { FinanceAction } from './action-types.js';
import { fetchHostHeader } from './host-lookup.js';
import { requirePositiveInt } from './payload.js';

/** Host detail without the password (only `has_password`; see `upstream.host_credentials`) and the traffic packages on sale. */
export const readHostDetail: FinanceAction = async ({ input, session }) => {
  const hostId = requirePositiveInt(input.payload, 'host_id');
  const header = await fetchHostHeader(session, hostId);
  const host = normaliseHostDetail(header.hostData);
  if (!host) throw unexpectedResponse('上游主机详情格式不正确');
  return { message: '已获取上游主机详情', data: { host, traffic_packages: normaliseTrafficPackages(header.data['flow_packet']) } };
};

import { normaliseTrafficPackages } from '../normalise/traffic-package.js';
import type { FinanceAction } from './action-types.js';
import { fetchHostHeader } from './host-lookup.js';
import { requirePositiveInt } from './payload.js';

/** The traffic packages the upstream sells for a host (from the host detail). */
export const readTrafficPackages: FinanceAction = async ({ input, session }) => {
  const hostId = requirePositiveInt(input.payload, 'host_id');
  const header = await fetchHostHeader(session, hostId);
  const packages = normaliseTrafficPackages(header.data['flow_packet']);
  return { message: '已获取上游流量包列表', data: { host_id: hostId, packages } };
};

import { asInt, asString } from '../read.js';
import type { FinanceAction } from './action-types.js';
import { fetchHostData } from './host-lookup.js';
import { requirePositiveInt } from './payload.js';

/** The host's login credentials, for a deliberate (and logged) reveal by the platform. */
export const readHostCredentials: FinanceAction = async ({ input, session }) => {
  const hostId = requirePositiveInt(input.payload, 'host_id');
  const raw = await fetchHostData(session, hostId);
  return {
    message: '已获取主机登录凭据',
    data: {
      credentials: {
        host_id: hostId,
        ip: asString(raw['dedicatedip']) ?? '',
        port: asInt(raw['port']),
        username: asString(raw['username']) ?? '',
        password: asString(raw['password']) ?? '',
      },
    },
  };
};

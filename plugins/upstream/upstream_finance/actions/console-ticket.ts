import { unexpectedResponse } from '../client/upstream-error.js';
import { asRecord, asString, type UnknownRecord } from '../read.js';
import type { FinanceAction } from './action-types.js';
import { requirePositiveInt } from './payload.js';

/**
 * The upstream's console URL is its console websocket (same host, path and query, `ws:`/`wss:`
 * for `http:`/`https:`); the query carries the upstream's one-time ticket. Anything else
 * (credentials in the URL, another scheme) is refused.
 */
function consoleWebsocketUrl(data: UnknownRecord): string {
  let url: URL;
  try {
    url = new URL(asString(data['url']) ?? '');
  } catch {
    throw unexpectedResponse('上游控制台地址格式不正确');
  }
  if (url.username || url.password) throw unexpectedResponse('上游控制台地址格式不正确');
  if (url.protocol === 'http:' || url.protocol === 'ws:') url.protocol = 'ws:';
  else if (url.protocol === 'https:' || url.protocol === 'wss:') url.protocol = 'wss:';
  else throw unexpectedResponse('上游控制台地址格式不正确');
  return url.toString();
}

/**
 * The console ticket of a host, for the platform's own websocket relay only: the `vnc` function
 * of `POST /provision/default` answers the console URL and the session's VNC password. Both go
 * under `console_secret`, a key the runtime log redacts whole; the relay uses them server-side
 * (it answers the VNC challenge itself) and never hands either to a browser.
 */
export const readConsoleTicket: FinanceAction = async ({ input, session }) => {
  const hostId = requirePositiveInt(input.payload, 'host_id');
  const envelope = await session.call({ method: 'POST', path: '/provision/default', form: { id: hostId, func: 'vnc' } });
  const data = asRecord(envelope.data) ?? {};
  const websocketUrl = consoleWebsocketUrl(data);
  const password = asString(data['pass']) ?? asString(data['password']) ?? '';
  return { message: '已获取控制台票据', data: { host_id: hostId, console_secret: { websocket_url: websocketUrl, password } } };
};

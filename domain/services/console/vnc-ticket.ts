import { userActor } from '../../../lib/actor.js';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppError, ErrorCode } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';
import { isPublicAddress, type Resolver, upstreamAddressesMustBePublic } from '../../suppliers/base-url-policy.js';
import { requireSupplierData } from '../../suppliers/upstream-result.js';
import { findServiceView } from '../find-service.js';
import { invokeServiceUpstream } from '../service-upstream.js';
import { requireConsoleAction } from './resolve-capabilities.js';

/** What the relay needs to reach the upstream console: never stored, never logged, never sent to a browser. */
export type UpstreamConsoleTicket = { websocketUrl: string; password: string; pluginLogId: number | null };

const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

const unusable = () => new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '上游控制台地址不可用，请稍后再试');

/**
 * The upstream decides where our server connects, so its console URL is held to the supplier
 * address rules: `ws:`/`wss:` without credentials; in production (`upstreamAddressesMustBePublic`)
 * `wss:` only and every address of the host public (no loopback, private or reserved ranges).
 */
export async function checkConsoleWebsocketUrl(deps: DomainDeps, value: string, resolve: Resolver = systemResolver): Promise<string> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw unusable();
  }
  if ((url.protocol !== 'ws:' && url.protocol !== 'wss:') || url.username || url.password) throw unusable();
  if (!upstreamAddressesMustBePublic(deps.config)) return url.toString();
  if (url.protocol !== 'wss:') throw unusable();
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : await resolve(host).catch(() => []);
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) throw unusable();
  return url.toString();
}

/**
 * The upstream console ticket of a session's service, fetched server-side through the service's
 * upstream plugin (`upstream.console_ticket`, logged in the runtime log with the ticket redacted).
 * The console must still be usable: bound host, active service, `vnc` capability. A refusal is
 * 40930, an unreachable supplier 50300 (the plugin's Chinese message).
 */
export async function fetchUpstreamConsoleTicket(deps: DomainDeps, input: { serviceId: number; userId: number }): Promise<UpstreamConsoleTicket> {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  await requireConsoleAction(deps, service, 'vnc', input.userId);
  const result = await invokeServiceUpstream(deps, service.id, { action: 'upstream.console_ticket', actor: userActor(input.userId) });
  const data = requireSupplierData(result);
  const secret = data['console_secret'];
  const websocketUrl = secret && typeof secret === 'object' && 'websocket_url' in secret ? secret.websocket_url : null;
  const password = secret && typeof secret === 'object' && 'password' in secret ? secret.password : null;
  if (typeof websocketUrl !== 'string' || typeof password !== 'string') throw unusable();
  return { websocketUrl: await checkConsoleWebsocketUrl(deps, websocketUrl), password, pluginLogId: result.logId };
}

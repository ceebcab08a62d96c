import { AppError, ErrorCode } from '../../../lib/errors.js';
import { formatDateTime } from '../../../lib/time.js';
import { sqlOne } from '../../../db/sql.js';
import type { DomainDeps } from '../../deps.js';
import { findServiceView } from '../find-service.js';
import { requireConsoleAction } from './resolve-capabilities.js';
import { consolePageUrl, hashVncToken, newVncToken, VNC_PUBLIC_TOKEN_TTL_SECONDS } from './vnc-tokens.js';

/** Console tokens per service in a rolling hour; more is 42900 (a page reload takes one, a script would take thousands). */
export const VNC_TOKENS_PER_HOUR = 60;

/**
 * A public console token for the caller's service: bound to the user, the service and the
 * client's address, stored hashed, valid once within `VNC_PUBLIC_TOKEN_TTL_SECONDS`, with the
 * URL of our console page. Nothing upstream is asked yet (the relay fetches the upstream's
 * console ticket when the browser connects), and neither a VNC password nor an upstream URL is
 * ever answered.
 */
export async function openVncConsole(deps: DomainDeps, input: { serviceId: number; userId: number; ip: string }) {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  await requireConsoleAction(deps, service, 'vnc', input.userId);
  const recent = await sqlOne<{ n: string }>(deps, `SELECT count(*) AS n FROM vnc_sessions WHERE service_id = $1 AND created_at > now() - interval '1 hour'`, [service.id]);
  if (Number(recent?.n ?? 0) >= VNC_TOKENS_PER_HOUR) throw new AppError(ErrorCode.TOO_MANY_REQUESTS, `打开控制台过于频繁，每小时最多 ${VNC_TOKENS_PER_HOUR} 次，请稍后再试`);
  const token = newVncToken();
  const row = await sqlOne<{ public_expires_at: Date }>(
    deps,
    `INSERT INTO vnc_sessions (service_id, user_id, client_ip, public_token_hash, public_expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) RETURNING public_expires_at`,
    [service.id, input.userId, input.ip, hashVncToken(token), VNC_PUBLIC_TOKEN_TTL_SECONDS],
  );
  return {
    service_id: service.id,
    token,
    console_url: consolePageUrl(deps, token),
    expires_in: VNC_PUBLIC_TOKEN_TTL_SECONDS,
    expires_at: formatDateTime(row?.public_expires_at ?? null) as string,
  };
}

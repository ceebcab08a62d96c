import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../../lib/crypto.js';
import { sqlOne } from '../../../db/sql.js';
import type { DomainDeps } from '../../deps.js';

/** The public console token: one minute, once, from the address that asked for it. */
export const VNC_PUBLIC_TOKEN_TTL_SECONDS = 60;
/**
 * The relay token: the console page redeems the public token and connects at once, so 30
 * seconds is plenty even on a slow network, and a leaked relay token dies quickly.
 */
export const VNC_RELAY_TOKEN_TTL_SECONDS = 30;

/** Our console page and the websocket relay behind it (served by the API process). */
export const VNC_CONSOLE_PAGE_PATH = '/console/vnc';
export const VNC_RELAY_PATH = '/console/vnc/relay';

/** 32 random bytes in base64url: 256 bits, 43 characters. */
export const VNC_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function newVncToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Tokens are stored as their SHA-256 only: a database read gives nobody a usable token. */
export function hashVncToken(token: string): string {
  return sha256Hex(token);
}

function baseUrl(deps: DomainDeps): string {
  return deps.config.publicBaseUrl.replace(/\/+$/, '');
}

export function consolePageUrl(deps: DomainDeps, token: string): string {
  return `${baseUrl(deps)}${VNC_CONSOLE_PAGE_PATH}?token=${token}`;
}

/** The relay's websocket URL: the public base URL with `ws`/`wss` for `http`/`https`. */
export function relayWebsocketUrl(deps: DomainDeps): string {
  return `${baseUrl(deps).replace(/^http/, 'ws')}${VNC_RELAY_PATH}`;
}

export type RedeemedVncToken = { sessionId: number; serviceId: number; relayToken: string; relayExpiresAt: Date };

/**
 * Takes a public token once and sets the session's relay token, in one guarded UPDATE: only an
 * unused, unexpired token presented from the address it was issued to, while the service still
 * belongs to the token's user and is active (with `userId`, also only that user's). Of two racing
 * requests one updates the row, the other finds `public_consumed_at` set and gets nothing. A
 * refused attempt changes nothing (a token seen from another address stays usable by its owner
 * until it expires).
 */
export async function redeemVncToken(deps: DomainDeps, input: { token: string; ip: string; userId: number | null }): Promise<RedeemedVncToken | null> {
  const relayToken = newVncToken();
  const row = await sqlOne<{ id: string; service_id: number; relay_expires_at: Date }>(
    deps,
    `UPDATE vnc_sessions v
        SET public_consumed_at = now(), relay_token_hash = $3, relay_expires_at = now() + make_interval(secs => $4)
       FROM services s
      WHERE v.public_token_hash = $1 AND v.public_consumed_at IS NULL AND v.public_expires_at > now() AND v.client_ip = $2
        AND ($5::int IS NULL OR v.user_id = $5)
        AND s.id = v.service_id AND s.user_id = v.user_id AND s.status = 'active'
    RETURNING v.id, v.service_id, v.relay_expires_at`,
    [hashVncToken(input.token), input.ip, hashVncToken(relayToken), VNC_RELAY_TOKEN_TTL_SECONDS, input.userId],
  );
  return row ? { sessionId: Number(row.id), serviceId: row.service_id, relayToken, relayExpiresAt: row.relay_expires_at } : null;
}

export type ClaimedRelay = { sessionId: number; serviceId: number; userId: number; startedAt: Date };

/** Takes a relay token once, the same way: unused, unexpired, from the bound address, service still the user's and active. */
export async function claimRelayToken(deps: DomainDeps, input: { token: string; ip: string }): Promise<ClaimedRelay | null> {
  const row = await sqlOne<{ id: string; service_id: number; user_id: number; relay_consumed_at: Date }>(
    deps,
    `UPDATE vnc_sessions v
        SET relay_consumed_at = now()
       FROM services s
      WHERE v.relay_token_hash = $1 AND v.relay_consumed_at IS NULL AND v.relay_expires_at > now() AND v.client_ip = $2
        AND s.id = v.service_id AND s.user_id = v.user_id AND s.status = 'active'
    RETURNING v.id, v.service_id, v.user_id, v.relay_consumed_at`,
    [hashVncToken(input.token), input.ip],
  );
  return row ? { sessionId: Number(row.id), serviceId: row.service_id, userId: row.user_id, startedAt: row.relay_consumed_at } : null;
}

import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { RequestMeta } from '../../domain/auth/sessions.js';
import { clientAddress } from '../../lib/client-address.js';
import type { AppEnv } from '../context.js';

/** The socket's remote address; '' only when the app is not served by `serveApp` (no Node bindings). */
function peerAddress(c: Context<AppEnv>): string {
  try {
    return getConnInfo(c).remote.address ?? '';
  } catch {
    return '';
  }
}

/**
 * Client address and agent for login logs, sessions and audit records: the one place that reads
 * the address. `X-Forwarded-For` counts only through proxies listed in `TRUST_PROXY` (see
 * `clientAddress`).
 */
export function requestMeta(c: Context<AppEnv>): RequestMeta {
  const ip = clientAddress(peerAddress(c), c.req.header('x-forwarded-for'), c.var.deps.config.trustedProxies);
  return { ip, userAgent: c.req.header('user-agent') ?? '' };
}

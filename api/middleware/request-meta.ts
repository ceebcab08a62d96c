import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { RequestMeta } from '../../domain/auth/sessions.js';
import type { AppEnv } from '../context.js';

/** Client address and agent for login logs and sessions; proxies are trusted only when configured. */
export function requestMeta(c: Context<AppEnv>): RequestMeta {
  let ip = '';
  if (c.var.deps.config.trustProxy) ip = c.req.header('x-forwarded-for')?.split(',')[0]?.trim() ?? '';
  if (!ip) {
    try {
      ip = getConnInfo(c).remote.address ?? '';
    } catch {
      ip = '';
    }
  }
  return { ip, userAgent: c.req.header('user-agent') ?? '' };
}

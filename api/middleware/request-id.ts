import type { HttpBindings } from '@hono/node-server';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';

/** What a caller may send as its own request id (hono's `requestId` rule): at most 255 word characters, `-` and `=`. */
const SENT_ID = /^[\w\-=]{1,255}$/;

/** The caller's own `X-Request-Id` when it is well formed, else undefined (a new id is made). */
export function sentRequestId(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' && SENT_ID.test(header) ? header : undefined;
}

/**
 * The request id (`c.var.requestId` and the `X-Request-Id` answer header): the caller's own when
 * it is well formed, otherwise `generate()`. As hono's `requestId` middleware, except that the
 * header goes on Node's response (`serveApp`): a header set through Hono's context makes every
 * answer build undici `Headers`, the slow path of @hono/node-server (api/middleware/security-headers.ts).
 */
export function requestIdentity(generate: () => string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    identifyRequest(c, generate);
    await next();
  };
}

/** What `requestIdentity` does before the rest of the chain, for a middleware that does more (`createApp`'s first). */
export function identifyRequest(c: Context<AppEnv>, generate: () => string): void {
  const id = sentRequestId(c.req.header('x-request-id')) ?? generate();
  c.set('requestId', id);
  const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
  if (outgoing && typeof outgoing.setHeader === 'function' && !outgoing.headersSent) outgoing.setHeader('X-Request-Id', id);
  else c.header('X-Request-Id', id);
}

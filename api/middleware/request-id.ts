import type { HttpBindings } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';

/** What a caller may send as its own request id (hono's `requestId` rule): at most 255 word characters, `-` and `=`. */
const SENT_ID = /^[\w\-=]{1,255}$/;

/**
 * The request id (`c.var.requestId` and the `X-Request-Id` answer header): the caller's own when
 * it is well formed, otherwise `generate()`. As hono's `requestId` middleware, except that the
 * header goes on Node's response (`serveApp`): a header set through Hono's context makes every
 * answer build undici `Headers`, the slow path of @hono/node-server (api/middleware/security-headers.ts).
 */
export function requestIdentity(generate: () => string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const sent = c.req.header('x-request-id');
    const id = sent !== undefined && SENT_ID.test(sent) ? sent : generate();
    c.set('requestId', id);
    const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
    if (outgoing && typeof outgoing.setHeader === 'function' && !outgoing.headersSent) outgoing.setHeader('X-Request-Id', id);
    else c.header('X-Request-Id', id);
    await next();
  };
}

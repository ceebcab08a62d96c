import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import type { AppEnv } from '../context.js';

type ContentSecurityPolicy = NonNullable<NonNullable<Parameters<typeof secureHeaders>[0]>['contentSecurityPolicy']>;

/** A JSON answer loads nothing and is never framed. */
const JSON_CSP: ContentSecurityPolicy = { defaultSrc: ["'none'"], frameAncestors: ["'none'"] };

/**
 * Hono's secure headers (nosniff, `Referrer-Policy: no-referrer`, `X-Frame-Options: DENY`, the
 * cross-origin isolation headers, ...) with `csp`. A header the handler or an inner
 * `securityHeaders` already set is kept (`overwrite: false`): that is how the docs page keeps its
 * own CSP under the JSON one applied to every answer. HSTS is left to the TLS terminator in front
 * of the API: only it knows the site is served over HTTPS.
 */
export function securityHeaders(csp: ContentSecurityPolicy = JSON_CSP): MiddlewareHandler<AppEnv> {
  return secureHeaders({ contentSecurityPolicy: csp, xFrameOptions: 'DENY', strictTransportSecurity: false, overwrite: false });
}

/** The public catalogue's routes (menus, lists, details, quotes, content). */
export const SITE_PREFIX = '/api/v2/site/';

/** Public catalogue reads: cacheable by whatever the route sets itself (nothing today). */
function isSiteRead(method: string | undefined, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && path.startsWith(SITE_PREFIX);
}

/**
 * The headers of every JSON answer: exactly what `securityHeaders()` (hono's secure headers with
 * `JSON_CSP`) sets, checked by test/api/security-headers.test.ts.
 */
export const ANSWER_SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'DENY'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
];

/**
 * The defaults of every answer, set on Node's response before the app runs (`serveApp` calls it
 * through `FetchApp.prepare`): the security headers above, and `Cache-Control: no-store` except on
 * public catalogue reads (tokens, personal data and admin data must never sit in a browser or proxy
 * cache). Node merges them under the headers the answer itself carries (`writeHead` takes
 * precedence), so a route or page that sets its own (the docs page's CSP, a cache policy) keeps it.
 *
 * Set here rather than by middleware after the handler: touching a finished answer's headers turns
 * @hono/node-server's cached answer into a full fetch `Response` with undici `Headers`, which cost
 * the public reads about a third of their throughput (issue #30, docs/benchmarks.md).
 */
export function prepareAnswerDefaults(incoming: IncomingMessage, outgoing: ServerResponse): void {
  for (const [name, value] of ANSWER_SECURITY_HEADERS) outgoing.setHeader(name, value);
  const url = incoming.url ?? '/';
  const query = url.indexOf('?');
  if (!isSiteRead(incoming.method, query === -1 ? url : url.slice(0, query))) outgoing.setHeader('Cache-Control', 'no-store');
}

export const CORS_ALLOW_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'];
export const CORS_ALLOW_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'];

/**
 * CORS for the configured origins only (`CORS_ORIGINS`), through hono's `cors`. A request from
 * any other origin (or none) passes untouched, without a single CORS header; so an `OPTIONS`
 * preflight from it reaches the not-found handler and gets the usual 40400/40500 envelope.
 * Tokens travel in `Authorization`, never in cookies: no credentials mode.
 */
export function corsForOrigins(origins: readonly string[]): MiddlewareHandler<AppEnv> | null {
  if (origins.length === 0) return null;
  const allowed = new Set(origins);
  const withCors = cors({
    origin: [...origins],
    allowMethods: CORS_ALLOW_METHODS,
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: ['X-Request-Id'],
    maxAge: 600,
  });
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin && allowed.has(origin)) return withCors(c, next);
    await next();
    // The answer differs by origin: a shared cache must not hand this one to an allowed origin.
    c.res.headers.append('Vary', 'Origin');
  };
}

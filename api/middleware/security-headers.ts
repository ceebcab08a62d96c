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

/** How the answers of one app treat cross-origin requests: the configured origins (`CORS_ORIGINS`). */
export type AnswerDefaults = (incoming: IncomingMessage, outgoing: ServerResponse) => void;

export const CORS_ALLOW_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'];
export const CORS_ALLOW_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'];
const CORS_EXPOSE_HEADERS = 'X-Request-Id';

/**
 * The defaults of every answer, set on Node's response before the app runs (`serveApp` calls it
 * through `FetchApp.prepare`, the remembered public answers call it too): the security headers
 * above, `Cache-Control: no-store` except on public catalogue reads (tokens, personal data and admin
 * data must never sit in a browser or proxy cache), and CORS for the configured origins
 * (`CORS_ORIGINS`): with any configured, every answer varies by `Origin` (a shared cache must not
 * hand one origin's answer to another), and a request from one of them (not a preflight, which
 * `corsPreflight` answers) is allowed to read the answer and its `X-Request-Id`. A request from any
 * other origin, or none, gets no CORS header. Node merges these under the headers the answer
 * itself carries (`writeHead` takes precedence), so a route or page that sets its own (the docs
 * page's CSP, a cache policy) keeps it.
 *
 * Set here rather than by middleware after the handler: touching a finished answer's headers turns
 * @hono/node-server's cached answer into a full fetch `Response` with undici `Headers`, which cost
 * the public reads about a third of their throughput (issue #30, docs/benchmarks.md); CORS through
 * hono's middleware cost a cross-origin read as much again (issue #35).
 */
export function answerDefaults(corsOrigins: readonly string[] = []): AnswerDefaults {
  const allowed = new Set(corsOrigins);
  const cors = allowed.size > 0;
  return (incoming, outgoing) => {
    for (const [name, value] of ANSWER_SECURITY_HEADERS) outgoing.setHeader(name, value);
    const url = incoming.url ?? '/';
    const query = url.indexOf('?');
    if (!isSiteRead(incoming.method, query === -1 ? url : url.slice(0, query))) outgoing.setHeader('Cache-Control', 'no-store');
    if (!cors) return;
    outgoing.setHeader('Vary', 'Origin');
    const origin = incoming.headers.origin;
    if (origin !== undefined && incoming.method !== 'OPTIONS' && allowed.has(origin)) {
      outgoing.setHeader('Access-Control-Allow-Origin', origin);
      outgoing.setHeader('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
    }
  };
}

/**
 * The preflight (`OPTIONS`) of a configured origin, answered 204 by hono's `cors` with what the API
 * accepts; every other request passes untouched (the CORS headers of answers are `answerDefaults`'),
 * so a preflight from any other origin reaches the not-found handler and gets the usual 40400/40500
 * envelope. Tokens travel in `Authorization`, never in cookies: no credentials mode.
 */
export function corsPreflight(origins: readonly string[]): MiddlewareHandler<AppEnv> | null {
  if (origins.length === 0) return null;
  const allowed = new Set(origins);
  const preflight = cors({
    origin: [...origins],
    allowMethods: CORS_ALLOW_METHODS,
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: [CORS_EXPOSE_HEADERS],
    maxAge: 600,
  });
  return (c, next) => {
    if (c.req.method !== 'OPTIONS') return next();
    const origin = c.req.header('origin');
    return origin !== undefined && allowed.has(origin) ? preflight(c, next) : next();
  };
}

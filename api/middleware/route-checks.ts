import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';

/**
 * A check a route makes before its handler: it throws its refusal (an `AppError`) or returns,
 * and returns a promise only when it has to wait (a body to read, a session to load).
 */
export type RouteCheck = (c: Context<AppEnv>) => void | Promise<void>;

const SHARED = Symbol('sharedQueryParse');

/**
 * The query string is parsed once per request: the unknown-key check, the string guard, the
 * route's query validator (hono's `validator('query')` calls `c.req.queries()`) and any other
 * reader share the first parse. Lazy: a request nobody asks about is never parsed. Each reader
 * copies what it takes (`Object.entries`), so the shared object is only read.
 */
export function shareQueryParse(c: Context): void {
  const req = c.req as Context['req'] & { [SHARED]?: true };
  if (req[SHARED]) return;
  req[SHARED] = true;
  const parse = req.queries.bind(req);
  let all: Record<string, string[]> | undefined;
  req.queries = ((key?: string) => (key === undefined ? (all ??= parse()) : parse(key))) as typeof req.queries;
}

/**
 * A route's checks in one middleware, in their order (one hop instead of one middleware each),
 * with the query string parsed once for all of them and the validators after them.
 */
export function runChecks(checks: readonly RouteCheck[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    shareQueryParse(c);
    for (const check of checks) {
      const waiting = check(c);
      if (waiting) await waiting;
    }
    await next();
  };
}

/** One check as a middleware of its own, for routes made with `createRoute` (hand-made routes). */
export function asMiddleware(check: RouteCheck): MiddlewareHandler<AppEnv> {
  return runChecks([check]);
}

import type { z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';
import { asMiddleware, type RouteCheck } from './route-checks.js';
import { cutText, validationError } from '../../lib/errors.js';
import { LEGACY_PAGING_KEYS } from '../schemas.js';

/**
 * The query keys a query schema declares: the keys of the object at its root, looked for
 * through the wrappers our schemas put around it (`listQuery` is an object piped into a
 * transform; `.optional()`, `.default()`, refinements). A schema whose keys cannot be read is a
 * programming error, reported when the route is defined, never a guess at request time.
 */
export function queryKeysOf(schema: z.ZodType): string[] {
  let current: unknown = schema;
  for (let depth = 0; depth < 10 && current; depth++) {
    const def = (current as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def) break;
    if (def['type'] === 'object') return Object.keys(def['shape'] as Record<string, unknown>);
    current = def['in'] ?? def['innerType'] ?? def['schema'];
  }
  throw new Error('查询参数的 schema 必须是对象（z.object 或 listQuery）：无法读出它的参数名');
}

/**
 * Refuses a request carrying a query parameter the route does not declare (42200 naming it):
 * a misspelt filter (`campaign` for `campaign_id`) must not silently answer everything. The
 * legacy paging names get the message that points to `page` / `page_size` (spec: Versioning 2).
 * A route without a query schema declares no parameter, so any query parameter is refused.
 * Repeated keys and `name[]` keys are checked by name like any other: a declared array
 * parameter still receives every value.
 */
export function unknownQueryCheck(declared: readonly string[]): RouteCheck {
  const known = new Set(declared);
  const paged = known.has('page_size');
  return (c) => {
    if (c.req.url.includes('?')) {
      // The keys exactly as the query validator reads them.
      const unknown = Object.keys(c.req.queries()).filter((key) => !known.has(key));
      if (unknown.length > 0) {
        const entries = unknown.map((key): [string, string[]] => {
          const named = key === '' ? '（空参数名）' : key;
          const legacy = paged && (LEGACY_PAGING_KEYS as readonly string[]).includes(key);
          return [key === '' ? '_' : key, [legacy ? `不支持 ${key} 分页参数，请使用 page 和 page_size` : `未知的查询参数：${named}`]];
        });
        const names = unknown.map((k) => (k === '' ? '（空参数名）' : k)).join('、');
        const allowed = declared.length ? `可用参数：${declared.join('、')}` : '该接口不接受查询参数';
        // Object.fromEntries makes `__proto__` an own key like any other.
        throw validationError(Object.fromEntries(entries), cutText(`未知的查询参数：${names}（${allowed}）`, 200));
      }
    }
  };
}

/** `unknownQueryCheck` as a middleware, for hand-made routes (`createRoute`); `defineRoute` runs the check with the route's others. */
export function refuseUnknownQuery(declared: readonly string[]): MiddlewareHandler<AppEnv> {
  return asMiddleware(unknownQueryCheck(declared));
}

import type { Context, Hono } from 'hono';
import { defaultMessages, ErrorCode } from '../../lib/errors.js';
import type { AppEnv } from '../context.js';
import { fail } from '../envelope.js';

type Matcher = { method: string; pattern: RegExp };

function compile(path: string): RegExp {
  const source = path
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/** Unknown paths answer 40400; a known path with the wrong method answers 40500 with `Allow`. */
export function createNotFoundHandler(app: Hono<AppEnv>) {
  let matchers: Matcher[] | null = null;
  return (c: Context<AppEnv>) => {
    matchers ??= app.routes
      .filter((r) => r.method !== 'ALL' && !r.path.endsWith('*'))
      .map((r) => ({ method: r.method, pattern: compile(r.path) }));
    const allowed = [...new Set(matchers.filter((m) => m.pattern.test(c.req.path)).map((m) => m.method))];
    if (allowed.length > 0) {
      c.header('Allow', allowed.join(', '));
      return fail(c, ErrorCode.METHOD_NOT_ALLOWED, defaultMessages[ErrorCode.METHOD_NOT_ALLOWED] as string, null, 405);
    }
    return fail(c, ErrorCode.NOT_FOUND, '接口不存在', null, 404);
  };
}

import { createHash } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_KEY_TTL_HOURS,
  type IdempotencyClaim,
  INVALID_IDEMPOTENCY_KEY_MESSAGE,
  releaseIdempotencyKey,
} from '../../domain/idempotency/idempotency-keys.js';
import type { AppEnv } from '../context.js';
import type { Access } from '../openapi/access.js';

/** Set on an answer that is a stored one sent again. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** Nesting beyond this is hashed as sent rather than canonicalised (no recursion on hostile input). */
const CANONICAL_DEPTH = 32;

function canonical(value: unknown, depth: number): string | null {
  if (depth > CANONICAL_DEPTH) return null;
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (const item of value) {
      const text = canonical(item, depth + 1);
      if (text === null) return null;
      items.push(text);
    }
    return `[${items.join(',')}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const text = canonical((value as Record<string, unknown>)[key], depth + 1);
      if (text === null) return null;
      entries.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The body as compared between two requests: JSON with sorted keys and no spacing, so the same
 * content in another key order or layout is the same request; anything else (empty, not JSON)
 * as sent. Read through Hono's body cache, so the route's validator still gets it.
 */
async function canonicalBody(c: Context<AppEnv>): Promise<string> {
  const text = await c.req.text();
  if (text.trim() === '') return '';
  try {
    return canonical(JSON.parse(text), 0) ?? text;
  } catch {
    return text;
  }
}

function scopeOf(c: Context<AppEnv>, surface: 'client' | 'admin'): string {
  return surface === 'client' ? `client:${c.var.client.id}` : `admin:${c.var.admin.id}`;
}

/**
 * Answers kept for replay: successes and business refusals (404, 409xx). Not kept, and the key
 * given back: server errors and dependency failures (5xx, thrown errors) so the same request may
 * be retried, throttling (429), and refusals of the request's form (400 malformed, 422
 * validation), after which the client corrects the body and sends it again under the same key.
 */
function replayable(status: number): boolean {
  return status < 500 && status !== 400 && status !== 422 && status !== 429;
}

/**
 * `Idempotency-Key` on a creating POST (installed by `defineRoute({ idempotent: true })`, after
 * the access check, so the principal is known). Without the header nothing changes. With it,
 * the first request under the key runs and its answer is stored; the same request again gets
 * that answer (same status and body, plus `Idempotent-Replayed: true`) without running.
 */
export function idempotencyKeys(route: { surface: 'client' | 'admin'; method: string; path: string }): MiddlewareHandler<AppEnv> {
  const method = route.method.toUpperCase();
  return async (c, next) => {
    const key = c.req.header(IDEMPOTENCY_KEY_HEADER);
    if (key === undefined) return next();
    const deps = c.var.deps;
    const fingerprint = createHash('sha256').update(`${method}\n${c.req.path}\n${await canonicalBody(c)}`).digest('hex');
    const outcome = await claimIdempotencyKey(deps, { scope: scopeOf(c, route.surface), key, method, route: route.path, fingerprint });
    if (outcome.kind === 'replay') {
      return c.body(outcome.answer.body, outcome.answer.status as ContentfulStatusCode, {
        'content-type': 'application/json',
        [IDEMPOTENT_REPLAYED_HEADER]: 'true',
      });
    }
    const claim = outcome.claim;
    try {
      await next();
    } catch (err) {
      await settle(c, claim, null);
      throw err;
    }
    await settle(c, claim, c.res);
  };
}

/**
 * Stores the answer or gives the key back. A failure here must not change the answer the
 * handler gave (its effect happened): it is logged, and the claim left `in_progress` is taken
 * over after IDEMPOTENCY_CLAIM_STALE_SECONDS.
 */
async function settle(c: Context<AppEnv>, claim: IdempotencyClaim, res: Response | null): Promise<void> {
  const deps = c.var.deps;
  try {
    if (res && replayable(res.status)) {
      await completeIdempotencyKey(deps, claim, { status: res.status, body: await res.clone().text() });
    } else {
      await releaseIdempotencyKey(deps, claim);
    }
  } catch (err) {
    deps.logger.error({ err, requestId: c.var.requestId, path: c.req.path }, 'idempotency key not settled');
  }
}

/**
 * The header in the OpenAPI document. The middleware checks the key first (in
 * `claimIdempotencyKey`, before the route's validators); this schema's validator applies the
 * same rule with the same message.
 */
const idempotencyKeyHeaders = z.object({
  [IDEMPOTENCY_KEY_HEADER]: z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN, { error: INVALID_IDEMPOTENCY_KEY_MESSAGE })
    .optional()
    .openapi({
      param: {
        name: IDEMPOTENCY_KEY_HEADER,
        in: 'header',
        description: `幂等键（可选，1 到 255 个可打印 ASCII 字符，按用户区分，保留 ${IDEMPOTENCY_KEY_TTL_HOURS} 小时）：相同的键与相同的请求返回首次的结果（响应头 ${IDEMPOTENT_REPLAYED_HEADER}: true），不会重复执行；相同的键用于不同的请求答 42200；首次请求仍在处理中答 40920。服务器错误（5xx）与参数校验失败（42200）不保留，可用同一个键重试。`,
      },
      example: 'c6f1e7a2-3b7d-4a0e-9f51-2d8c0b4e6a17',
    }),
});

/**
 * `defineRoute({ idempotent: true })`: the header for the document and the middleware, which
 * runs after the access check (keys are per principal).
 */
export function idempotentRoute(spec: { method: string; path: string; access: Access; request?: { headers?: unknown } }) {
  if (spec.access.surface === 'public') throw new Error(`${spec.path}: idempotency keys need a logged-in surface`);
  if (spec.request?.headers) throw new Error(`${spec.path}: an idempotent route declares no other headers`);
  return { headers: idempotencyKeyHeaders, middleware: idempotencyKeys({ surface: spec.access.surface, method: spec.method, path: spec.path }) };
}

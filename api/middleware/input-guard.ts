import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { AppError, ErrorCode, validationError } from '../../lib/errors.js';
import type { AppEnv } from '../context.js';
import { asMiddleware, type RouteCheck } from './route-checks.js';

/**
 * Request bodies are refused past this size before they are read whole (413, code 41300).
 * JSON and form bodies of this API are small; uploads declare their own limit.
 */
export const JSON_BODY_LIMIT_BYTES = 256 * 1024;

const RAW_BODY = Symbol('rawBody');
type WithRawBody = IncomingMessage & { [RAW_BODY]?: Buffer };

/** A body already read from the socket before the app ran (api/public-answers.ts): `limitBody` serves it. */
export function stashRawBody(incoming: IncomingMessage, body: Buffer): void {
  (incoming as WithRawBody)[RAW_BODY] = body;
}

/** The raw body `limitBody` read (or found stashed) for this request, byte for byte (latin1); undefined when none was read. */
export function rawBodyBytes(incoming: IncomingMessage | undefined): string | undefined {
  const body = incoming ? (incoming as WithRawBody)[RAW_BODY] : undefined;
  return body === undefined ? undefined : body.toString('latin1');
}

export function limitBody(maxSize: number): MiddlewareHandler {
  const tooLarge = (): never => {
    throw new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `请求体过大，最多 ${Math.floor(maxSize / 1024)} KB`);
  };
  const throughFetchApi = bodyLimit({ maxSize, onError: tooLarge });
  return async (c, next) => {
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (!(incoming instanceof Readable)) return throughFetchApi(c, next);
    // Served by node:http (api/server.ts): the body is read straight from the socket's stream,
    // up to the limit, and handed to Hono's body cache, which every reader of the request goes
    // through (`c.req.json()`, `text()`, `parseBody()`, the validators). Hono's own limit would
    // first build a fetch Request with a web stream over the same bytes: on the quote and payment
    // routes that conversion cost more CPU than the route's own work.
    const declared = incoming.headers['content-length'];
    if (declared !== undefined && incoming.headers['transfer-encoding'] === undefined && Number(declared) > maxSize) tooLarge();
    let body = (incoming as WithRawBody)[RAW_BODY];
    if (body === undefined) {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of incoming as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxSize) {
          incoming.resume();
          tooLarge();
        }
        chunks.push(chunk);
      }
      body = Buffer.concat(chunks, size);
      (incoming as WithRawBody)[RAW_BODY] = body;
    } else if (body.length > maxSize) {
      tooLarge();
    }
    const bytes = body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer;
    // Hono keeps promises in this cache (its type says values). Text decodes as fetch's `text()` does: UTF-8, a BOM dropped.
    const cache = c.req.bodyCache as Record<string, Promise<unknown>>;
    cache.arrayBuffer = Promise.resolve(bytes);
    cache.text = Promise.resolve(new TextDecoder().decode(body));
    await next();
  };
}

// C0 controls except tab, line feed and carriage return, and DEL: exactly what the rule forbids.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const MAX_DEPTH = 32;

/** Why a string may not be stored, or null: well-formed Unicode without control characters. */
export function badStringReason(value: string): string | null {
  if (CONTROL.test(value)) return '不能包含控制字符';
  if (LONE_SURROGATE.test(value)) return '包含无效的 Unicode 字符';
  return null;
}

type Finding = { field: string; message: string };

/** The first bad string (value or key) in a parsed JSON value, walked without recursion. */
export function findBadString(root: unknown, rootField: string): Finding | null {
  const stack: { value: unknown; path: string[]; depth: number }[] = [{ value: root, path: [], depth: 0 }];
  const name = (path: string[]) => (path.length ? path.join('.') : rootField);
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop() as { value: unknown; path: string[]; depth: number };
    if (typeof value === 'string') {
      const reason = badStringReason(value);
      if (reason) return { field: name(path), message: reason };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_DEPTH) return { field: name(path), message: `嵌套层级过深（最多 ${MAX_DEPTH} 层）` };
    for (const [key, child] of Object.entries(value)) {
      const reason = badStringReason(key);
      if (reason) return { field: name(path), message: `字段名${reason}` };
      stack.push({ value: child, path: [...path, key], depth: depth + 1 });
    }
  }
  return null;
}

const isJson = (type: string) => /^application\/([a-z0-9.+-]+\+)?json\b/i.test(type);
const isUrlEncoded = (type: string) => /^application\/x-www-form-urlencoded\b/i.test(type);

/**
 * Every string a route receives (path, query, JSON or form body) is well-formed Unicode without
 * control characters: decided here once, for every route, instead of per field. PostgreSQL
 * refuses NUL and lone surrogates, which would otherwise surface as a 500 from deep inside.
 * Waits only for a JSON or form body.
 */
export const checkStrings: RouteCheck = (c) => {
  const params = c.req.param() as Record<string, string>;
  const found =
    findBadString(params, 'path') ??
    (c.req.url.includes('?') ? findBadString(Object.fromEntries(Object.entries(c.req.queries()).map(([k, v]) => [k, v.join('')])), 'query') : null);
  if (found) throw validationError({ [found.field]: [found.message] });
  const type = c.req.header('content-type') ?? '';
  if (!isJson(type) && !isUrlEncoded(type)) return;
  return bodyFinding(type, c.req).then((inBody) => {
    if (inBody) throw validationError({ [inBody.field]: [inBody.message] });
  });
};

/** `checkStrings` as a middleware, for hand-made routes; `defineRoute` runs it with the route's other checks. */
export const guardStrings: MiddlewareHandler<AppEnv> = asMiddleware(checkStrings);

async function bodyFinding(type: string, req: { json(): Promise<unknown>; parseBody(): Promise<Record<string, unknown>> }) {
  try {
    if (isJson(type)) return findBadString(await req.json(), 'body');
    if (isUrlEncoded(type)) return findBadString(await req.parseBody(), 'body');
  } catch {
    // Malformed bodies are the validators' to refuse (40002), with their own message.
  }
  return null;
}

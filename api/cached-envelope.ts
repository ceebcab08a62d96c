import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import type { AppEnv } from './context.js';
import { routeTemplate } from './middleware/operations.js';
import { cachedComputation, cachedRead } from '../domain/catalogue/catalogue-cache.js';
import type { DomainDeps } from '../domain/deps.js';
import { ErrorCode } from '../lib/errors.js';
import { unixSeconds } from '../lib/time.js';
import type { ok } from './envelope.js';

/**
 * The `data` of a cached answer, already serialised (`T` only types the route's response), and
 * the last whole answer built around it as bytes (`okCached`): a hot entry is encoded once a
 * second (the envelope's timestamp), not once per request.
 */
export type CachedData<T> = {
  json: string;
  /** Where it is stored in the catalogue cache (reads, or computed answers) and under which key. */
  space: 'reads' | 'computed';
  key: string;
  answer?: { message: string; second: number; bytes: Uint8Array<ArrayBuffer> };
  readonly _type?: T;
};

/**
 * A public read served from the catalogue cache as serialised JSON: a hit costs neither the
 * database nor a JSON.stringify of the data (the hot path of the storefront). `load` answering
 * null (absent, unlisted) is cached too and answered as null.
 */
export async function cachedData<T>(deps: DomainDeps, key: string, load: () => Promise<T | null>): Promise<CachedData<T> | null> {
  return cachedRead(deps, key, async () => {
    const data = await load();
    return data === null ? null : serialised(data, 'reads', key);
  });
}

/**
 * An answer computed from the catalogue alone (a quote), remembered serialised until the next
 * catalogue change (see `cachedComputation`); a refusal thrown by `compute` is never remembered.
 */
export async function cachedComputedData<T>(deps: DomainDeps, key: string, compute: () => Promise<T>): Promise<CachedData<T>> {
  return cachedComputation(deps, key, async () => serialised(await compute(), 'computed', key));
}

function serialised<T>(data: T, space: CachedData<T>['space'], key: string): CachedData<T> {
  return { json: JSON.stringify(data), space, key };
}

const HEADS = new Map<string, string>();

function headFor(message: string): string {
  let head = HEADS.get(message);
  if (!head) {
    head = `{"code":0,"message":${JSON.stringify(message)},"data":`;
    HEADS.set(message, head);
  }
  return head;
}

/** The whole answer around cached data as bytes, encoded at most once a second (its timestamp). */
function answerBytes(data: CachedData<unknown>, message: string): Uint8Array<ArrayBuffer> {
  const second = unixSeconds();
  let answer = data.answer;
  if (answer?.second !== second || answer.message !== message) {
    answer = { message, second, bytes: new TextEncoder().encode(`${headFor(message)}${data.json},"timestamp":${second}}`) };
    data.answer = answer;
  }
  return answer.bytes;
}

/**
 * The success envelope around cached data, byte for byte what `ok(c, data, message)` would
 * answer. The request is remembered (api/public-answers.ts) unless `rememberable` is false (the
 * answer depends on more than the catalogue cache): the same GET, or anonymous POST with the same
 * body, is then answered before the router while the cache entry lasts.
 */
export function okCached<T>(c: Context<AppEnv>, data: CachedData<T>, message = '成功', rememberable = true): ReturnType<typeof ok<T>> {
  c.set('responseCode', ErrorCode.OK);
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  if (rememberable && incoming) {
    c.var.publicAnswers?.remember(incoming, {
      route: routeTemplate(c),
      space: data.space,
      key: data.key,
      data,
      bytes: () => answerBytes(data, message),
    });
  }
  // Bytes and one header, a plain object: @hono/node-server writes them as they are, with their
  // length (its fast path; more headers here would build undici `Headers` for every answer).
  const response = c.body(answerBytes(data, message), 200, { 'content-type': 'application/json; charset=UTF-8' });
  // The envelope is built as bytes; the route's typed response is the same JSON.
  return response as unknown as ReturnType<typeof ok<T>>;
}

/** Lists and pages always load: a null here is a bug, not "absent". */
export function present<T>(data: CachedData<T> | null): CachedData<T> {
  if (!data) throw new Error('a cached catalogue page was null');
  return data;
}

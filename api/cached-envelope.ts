import type { Context } from 'hono';
import { cachedComputation, cachedRead } from '../domain/catalogue/catalogue-cache.js';
import type { DomainDeps } from '../domain/deps.js';
import { unixSeconds } from '../lib/time.js';
import type { ok } from './envelope.js';

/** The `data` of a cached answer, already serialised (`T` only types the route's response). */
export type CachedData<T> = { json: string; bytes: number; readonly _type?: T };

/**
 * A public read served from the catalogue cache as serialised JSON: a hit costs neither the
 * database nor a JSON.stringify of the data (the hot path of the storefront). `load` answering
 * null (absent, unlisted) is cached too and answered as null.
 */
export async function cachedData<T>(deps: DomainDeps, key: string, load: () => Promise<T | null>): Promise<CachedData<T> | null> {
  return cachedRead(deps, key, async () => {
    const data = await load();
    return data === null ? null : serialised(data);
  });
}

/**
 * An answer computed from the catalogue alone (a quote), remembered serialised until the next
 * catalogue change (see `cachedComputation`); a refusal thrown by `compute` is never remembered.
 */
export async function cachedComputedData<T>(deps: DomainDeps, key: string, compute: () => Promise<T>): Promise<CachedData<T>> {
  return cachedComputation(deps, key, async () => serialised(await compute()));
}

function serialised<T>(data: T): CachedData<T> {
  const json = JSON.stringify(data);
  return { json, bytes: Buffer.byteLength(json) };
}

const HEADS = new Map<string, { text: string; bytes: number }>();

function headFor(message: string): { text: string; bytes: number } {
  let head = HEADS.get(message);
  if (!head) {
    const text = `{"code":0,"message":${JSON.stringify(message)},"data":`;
    head = { text, bytes: Buffer.byteLength(text) };
    HEADS.set(message, head);
  }
  return head;
}

/** The success envelope around cached data, byte for byte what `ok(c, data, message)` would answer. */
export function okCached<T>(c: Context, data: CachedData<T>, message = '成功'): ReturnType<typeof ok<T>> {
  const head = headFor(message);
  const tail = `,"timestamp":${unixSeconds()}}`;
  const response = c.body(head.text + data.json + tail, 200, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': String(head.bytes + data.bytes + tail.length),
  });
  // The envelope is built as text; the route's typed response is the same JSON.
  return response as unknown as ReturnType<typeof ok<T>>;
}

/** Lists and pages always load: a null here is a bug, not "absent". */
export function present<T>(data: CachedData<T> | null): CachedData<T> {
  if (!data) throw new Error('a cached catalogue page was null');
  return data;
}

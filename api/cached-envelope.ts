import type { Context } from 'hono';
import { cachedRead } from '../domain/catalogue/catalogue-cache.js';
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
    if (data === null) return null;
    const json = JSON.stringify(data);
    return { json, bytes: Buffer.byteLength(json) };
  });
}

const HEAD = '{"code":0,"message":"成功","data":';
const HEAD_BYTES = Buffer.byteLength(HEAD);

/** The success envelope around cached data, byte for byte what `ok(c, data)` would answer. */
export function okCached<T>(c: Context, data: CachedData<T>): ReturnType<typeof ok<T>> {
  const tail = `,"timestamp":${unixSeconds()}}`;
  const response = c.body(HEAD + data.json + tail, 200, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': String(HEAD_BYTES + data.bytes + tail.length),
  });
  // The envelope is built as text; the route's typed response is the same JSON.
  return response as unknown as ReturnType<typeof ok<T>>;
}

/** Lists and pages always load: a null here is a bug, not "absent". */
export function present<T>(data: CachedData<T> | null): CachedData<T> {
  if (!data) throw new Error('a cached catalogue page was null');
  return data;
}

import type { Logger } from '../../lib/logger.js';
import { listenForNotifications } from '../../lib/pg-listener.js';
import { cacheLookups } from '../../lib/metrics.js';

export const CATALOGUE_CHANNEL = 'catalogue_invalidate';

/** Distinct keys kept at most; past it the cache starts over (keys come from bounded queries). */
const MAX_ENTRIES = 5_000;
/**
 * Computed answers (quotes) kept at most, apart from the reads: their keys come from request
 * bodies, so many distinct ones must not push the menus and details out. Oldest first out.
 */
const MAX_COMPUTED = 2_000;

type Entry = { value: unknown; until: number };

export type CatalogueCache = {
  /** `{ value }` on a hit (the value may be null: "absent" is cached too), undefined otherwise. */
  get(key: string): { value: unknown } | undefined;
  /** Taken before loading from the database and handed back to `set` (see principal-cache). */
  ticket(): number;
  set(ticket: number, key: string, value: unknown): void;
  /** The same for answers computed from the catalogue (quotes), in their own bounded space. */
  getComputed(key: string): { value: unknown } | undefined;
  setComputed(ticket: number, key: string, value: unknown): void;
  /** Drops everything: catalogue writes are rare, reads are many. */
  invalidate(): void;
  isListening(): boolean;
  close(): Promise<void>;
};

/**
 * The public catalogue's read cache (site menus, lists, details, home, the quote's product
 * load), per API process. Any catalogue write calls `publishCatalogueChange` in its transaction:
 * it clears the local cache and `pg_notify`s `catalogue_invalidate`, which every other process
 * LISTENs to. While the listener is down the cache is bypassed; entries also expire after
 * `ttlMs` as a safety net for writers outside this code (0 disables the cache).
 */
export function createCatalogueCache(options: { databaseUrl: string; ttlMs: number; logger: Logger }): CatalogueCache {
  const entries = new Map<string, Entry>();
  const computed = new Map<string, Entry>();
  let generation = 0;
  const invalidate = () => {
    generation += 1;
    entries.clear();
    computed.clear();
  };
  const listener =
    options.ttlMs > 0
      ? listenForNotifications({
          databaseUrl: options.databaseUrl,
          channel: CATALOGUE_CHANNEL,
          logger: options.logger,
          name: 'catalogue cache',
          onNotification: invalidate,
          onReset: invalidate,
        })
      : null;
  const listening = () => listener?.isListening() ?? false;

  const read = (map: Map<string, Entry>, key: string) => {
    if (!listening()) return undefined;
    const entry = map.get(key);
    if (!entry) return undefined;
    if (entry.until <= Date.now()) {
      map.delete(key);
      return undefined;
    }
    return { value: entry.value };
  };
  const until = () => Date.now() + options.ttlMs;

  return {
    get: (key) => read(entries, key),
    ticket: () => generation,
    set(ticket, key, value) {
      if (!listening() || ticket !== generation) return;
      if (entries.size >= MAX_ENTRIES) entries.clear();
      entries.set(key, { value, until: until() });
    },
    getComputed: (key) => read(computed, key),
    setComputed(ticket, key, value) {
      if (!listening() || ticket !== generation) return;
      if (computed.size >= MAX_COMPUTED) computed.delete(computed.keys().next().value as string);
      computed.set(key, { value, until: until() });
    },
    invalidate,
    isListening: listening,
    async close() {
      await listener?.close();
      invalidate();
    },
  };
}

type Space = 'reads' | 'computed';

/** What the cached reads need: a `DomainDeps` is one (not imported: `domain/deps.ts` names this cache's type). */
type CachedDeps = { readonly catalogueCache?: CatalogueCache | undefined };

async function readThrough<T>(deps: CachedDeps, space: Space, key: string, load: () => Promise<T>): Promise<T> {
  const cache = deps.catalogueCache;
  if (!cache) return load();
  const hit = space === 'reads' ? cache.get(key) : cache.getComputed(key);
  cacheLookups.inc({ cache: `catalogue_${space}`, result: hit ? 'hit' : 'miss' });
  if (hit) return hit.value as T;
  const ticket = cache.ticket();
  const value = await load();
  if (space === 'reads') cache.set(ticket, key, value);
  else cache.setComputed(ticket, key, value);
  return value;
}

/**
 * A pure function of the catalogue (a quote), remembered until the next catalogue change: the
 * remembered answer of `key`, or `compute()` stored under it. Failures (refusals) are never
 * stored. Without a cache (worker, scripts) it just computes.
 */
export function cachedComputation<T>(deps: CachedDeps, key: string, compute: () => Promise<T>): Promise<T> {
  return readThrough(deps, 'computed', key, compute);
}

/**
 * Read-through: the cached value of `key`, or `load()` stored under it. A load that raced an
 * invalidation is answered but not stored. Without a cache (worker, scripts) it just loads.
 */
export function cachedRead<T>(deps: CachedDeps, key: string, load: () => Promise<T>): Promise<T> {
  return readThrough(deps, 'reads', key, load);
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CatalogueCache } from '../domain/catalogue/catalogue-cache.js';
import { cacheLookups, httpRequestDuration, httpRequests } from '../lib/metrics.js';
import { ANSWER_SECURITY_HEADERS } from './middleware/security-headers.js';

/** Distinct URLs remembered at most; past it the map starts over (query strings are the caller's). */
const MAX_URLS = 2_000;
/** Longer request targets are never remembered. */
const MAX_URL_LENGTH = 1_024;
/** A request id the caller may send (as `requestIdentity`). */
const SENT_ID = /^[\w\-=]{1,255}$/;

type Remembered = {
  /** The route template, for the metrics (`/api/v2/site/products/{productId}`). */
  route: string;
  /** The catalogue cache key the answer was built from, and the value it held then. */
  key: string;
  data: unknown;
  /** The answer's bytes of one second (`okCached` renews them). */
  bytes: () => Uint8Array;
};

/**
 * The public catalogue's answers by request target (`GET /api/v2/site/products?page=1&…`),
 * answered before the router: a URL the whole chain has answered 200 from the catalogue cache
 * (`okCached`) is answered again from the same cached bytes while that cache entry is the same
 * object, so it follows the catalogue cache exactly (a catalogue write, a LISTEN reset or the TTL
 * ends both). Such a request has nothing left to check: it carries no body, no credential is read
 * by these routes, and the same target was validated (query keys, strings, the query schema) by
 * the chain when it was remembered; the answer does not depend on anything else. It still gets
 * what every answer gets: the security headers, a request id, the metrics (route template, 200,
 * code 0; `cache_lookups_total{cache="public_answers"}` counts them, and the remembered URLs found
 * stale); like every answered public read it is no row of the request log.
 *
 * Off when tracing is on (every request is a span, made by the chain) or the cache is off; a
 * request with an `Origin` header goes through the chain (CORS).
 */
export function createPublicAnswers(options: { cache: CatalogueCache | undefined; enabled: boolean; generateId: () => string }) {
  const byUrl = new Map<string, Remembered>();
  const cache = options.enabled ? options.cache : undefined;

  const answerRemembered = (cache: CatalogueCache, incoming: IncomingMessage, outgoing: ServerResponse): boolean => {
    const url = incoming.url;
    const remembered = url === undefined ? undefined : byUrl.get(url);
    if (!url || !remembered) return false;
    if (cache.get(remembered.key)?.value !== remembered.data) {
      byUrl.delete(url);
      cacheLookups.inc({ cache: 'public_answers', result: 'miss' });
      return false;
    }
    const started = performance.now();
    cacheLookups.inc({ cache: 'public_answers', result: 'hit' });
    const sent = incoming.headers['x-request-id'];
    const id = typeof sent === 'string' && SENT_ID.test(sent) ? sent : options.generateId();
    for (const [name, value] of ANSWER_SECURITY_HEADERS) outgoing.setHeader(name, value);
    const bytes = remembered.bytes();
    outgoing.writeHead(200, { 'X-Request-Id': id, 'Content-Type': 'application/json; charset=UTF-8', 'Content-Length': bytes.byteLength });
    outgoing.end(bytes);
    httpRequests.inc({ method: 'GET', route: remembered.route, status: '200', code: '0' });
    httpRequestDuration.observe({ method: 'GET', route: remembered.route }, (performance.now() - started) / 1000);
    return true;
  };

  return {
    /** After the chain answered `url` from the catalogue cache entry `key` (see `okCached`). */
    remember(url: string | undefined, entry: Remembered): void {
      if (!cache || !url || url.length > MAX_URL_LENGTH) return;
      if (byUrl.size >= MAX_URLS) byUrl.clear();
      byUrl.set(url, entry);
    },
    /** Answers a remembered public read and returns true, or returns false (the chain answers). */
    answer(incoming: IncomingMessage, outgoing: ServerResponse): boolean {
      if (!cache || incoming.method !== 'GET' || incoming.headers.origin !== undefined) return false;
      try {
        return answerRemembered(cache, incoming, outgoing);
      } catch {
        // A header refused before anything was written: the chain answers (and fails in its own way if it must).
        return outgoing.headersSent;
      }
    },
  };
}

export type PublicAnswers = ReturnType<typeof createPublicAnswers>;

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CatalogueCache } from '../domain/catalogue/catalogue-cache.js';
import { cacheLookups, httpRequestDuration, httpRequests } from '../lib/metrics.js';
import { rawBodyBytes, stashRawBody } from './middleware/input-guard.js';
import { sentRequestId } from './middleware/request-id.js';
import type { AnswerDefaults } from './middleware/security-headers.js';
import type { PublicAnswers, RememberedAnswer } from './context.js';

/** Distinct requests remembered at most; past it the map starts over (query strings and bodies are the caller's). */
const MAX_REMEMBERED = 2_000;
/** Longer request targets are never remembered. */
const MAX_URL_LENGTH = 1_024;
/** Larger bodies (a quote's is ~100 bytes) are never remembered nor read here. */
const MAX_BODY_BYTES = 2_048;

/** A GET by its target; a POST by target, content type and exact body (the chain decided on all three). */
const requestKey = (url: string, post?: { type: string; body: string }) => (post === undefined ? url : `${url}\n${post.type}\n${post.body}`);

/**
 * The public catalogue's answers by request, answered before the router: a GET target (or an
 * anonymous POST, the quote, by target, content type and exact body) the whole chain has answered 200 from
 * the catalogue cache (`okCached`) is answered again from the same cached bytes while that cache
 * entry is the same object, so it follows the catalogue cache exactly (a catalogue write, a LISTEN
 * reset or the TTL ends both). Such a request has nothing left to check: these routes read no
 * credential, the same target and body were validated (query keys, strings, the schemas) by the
 * chain when remembered, and the answer depends on nothing else (a quote that depends on a setting,
 * a product held below cost, is never remembered: `okCached`'s `rememberable`). It still gets what
 * every answer gets: the security headers, a request id, the metrics (route template, 200, code 0;
 * `cache_lookups_total{cache="public_answers"}` counts them, and the remembered requests found
 * stale); like every answered public read it is no row of the request log.
 *
 * Off when tracing is on (every request is a span, made by the chain) or without the cache; a
 * request with an `Origin` header (CORS) or, for a POST, an `Authorization` header goes through the
 * chain. A POST body read here and not answered is handed to the chain (`stashRawBody`).
 */
export function createPublicAnswers(options: { cache: CatalogueCache | undefined; enabled: boolean; generateId: () => string; prepare: AnswerDefaults }): PublicAnswers & {
  answer(incoming: IncomingMessage, outgoing: ServerResponse): boolean | Promise<boolean>;
} {
  const remembered = new Map<string, RememberedAnswer>();
  /** Targets with a remembered POST: only their bodies are read here. */
  const postTargets = new Set<string>();
  const cache = options.enabled ? options.cache : undefined;

  const current = (cache: CatalogueCache, entry: RememberedAnswer) =>
    (entry.space === 'reads' ? cache.get(entry.key) : cache.getComputed(entry.key))?.value === entry.data;

  const send = (cache: CatalogueCache, key: string, incoming: IncomingMessage, outgoing: ServerResponse): boolean => {
    const entry = remembered.get(key);
    if (!entry) return false;
    if (!current(cache, entry)) {
      remembered.delete(key);
      cacheLookups.inc({ cache: 'public_answers', result: 'miss' });
      return false;
    }
    const started = performance.now();
    cacheLookups.inc({ cache: 'public_answers', result: 'hit' });
    const id = sentRequestId(incoming.headers['x-request-id']) ?? options.generateId();
    // The defaults of every answer, as the chain's: security headers, no-store but on site reads, `Vary: Origin` with CORS on.
    options.prepare(incoming, outgoing);
    const bytes = entry.bytes();
    outgoing.writeHead(200, { 'X-Request-Id': id, 'Content-Type': 'application/json; charset=UTF-8', 'Content-Length': bytes.byteLength });
    outgoing.end(bytes);
    const method = incoming.method ?? 'GET';
    httpRequests.inc({ method, route: entry.route, status: '200', code: '0' });
    httpRequestDuration.observe({ method, route: entry.route }, (performance.now() - started) / 1000);
    return true;
  };

  /** Reads a small POST body, then answers it when remembered; the body is stashed for the chain otherwise. */
  const answerPost = (cache: CatalogueCache, url: string, type: string, incoming: IncomingMessage, outgoing: ServerResponse): Promise<boolean> =>
    new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on('data', (chunk: Buffer) => {
        size += chunk.length;
        chunks.push(chunk);
      });
      incoming.once('error', () => resolve(false));
      incoming.once('end', () => {
        const body = Buffer.concat(chunks, size);
        stashRawBody(incoming, body);
        try {
          resolve(size <= MAX_BODY_BYTES && send(cache, requestKey(url, { type, body: body.toString('latin1') }), incoming, outgoing));
        } catch {
          resolve(outgoing.headersSent);
        }
      });
    });

  return {
    /** After the chain answered this request from the catalogue cache (a POST's raw body as `limitBody` read it). */
    remember(incoming: IncomingMessage, entry: RememberedAnswer): void {
      const { method, url } = incoming;
      if (!cache || !url || url.length > MAX_URL_LENGTH) return;
      let post: { type: string; body: string } | undefined;
      if (method === 'POST') {
        const body = rawBodyBytes(incoming);
        const type = incoming.headers['content-type'];
        if (body === undefined || body.length > MAX_BODY_BYTES || type === undefined) return;
        post = { type, body };
      } else if (method !== 'GET') {
        return;
      }
      if (remembered.size >= MAX_REMEMBERED) {
        remembered.clear();
        postTargets.clear();
      }
      if (post) postTargets.add(url);
      remembered.set(requestKey(url, post), entry);
    },
    /**
     * Answers a remembered public request: true (answered), false (the chain answers), or a
     * promise of either for a POST whose body is read first.
     */
    answer(incoming: IncomingMessage, outgoing: ServerResponse): boolean | Promise<boolean> {
      const url = incoming.url;
      if (!cache || !url || incoming.headers.origin !== undefined) return false;
      try {
        if (incoming.method === 'GET') return send(cache, url, incoming, outgoing);
        if (incoming.method !== 'POST' || !postTargets.has(url) || incoming.headers.authorization !== undefined) return false;
        const length = Number(incoming.headers['content-length']);
        const type = incoming.headers['content-type'];
        if (incoming.headers['transfer-encoding'] !== undefined || !(length > 0 && length <= MAX_BODY_BYTES) || type === undefined) return false;
        return answerPost(cache, url, type, incoming, outgoing);
      } catch {
        // A header refused before anything was written: the chain answers (and fails in its own way if it must).
        return outgoing.headersSent;
      }
    },
  };
}

import type { BenchRequest } from './bench-request.js';

/** One side of a pair: a request on loopback (GET, or POST with a JSON body) and what a correct answer looks like. */
export type Target = {
  name: string;
  /** The request's URL; with `requests`, the server's base URL (their paths are appended). */
  url: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  /** Requests rotated over instead of one (each connection sends them in order, then again). */
  requests?: BenchRequest[];
  /** Returns a problem description, or null when the parsed JSON body is what we expect. */
  expect?: (body: unknown) => string | null;
};

async function verifyOne(target: Target, url: string, request: Omit<BenchRequest, 'path'>): Promise<void> {
  const headers: Record<string, string> = { ...(request.body === undefined ? {} : { 'content-type': 'application/json' }), ...target.headers, ...request.headers };
  const res = await fetch(url, {
    method: request.method,
    headers,
    ...(request.body === undefined ? {} : { body: request.body }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status < 200 || res.status > 299) throw new Error(`${target.name}: ${url} answered HTTP ${res.status}: ${text.slice(0, 300)}`);
  // A request with an allowed `Origin` must be answered for that origin (CORS), on both sides.
  const origin = headers.origin;
  if (origin !== undefined && res.headers.get('access-control-allow-origin') !== origin) {
    throw new Error(`${target.name}: ${url} with Origin ${origin} answered Access-Control-Allow-Origin ${String(res.headers.get('access-control-allow-origin'))}`);
  }
  if (!target.expect) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${target.name}: ${url} did not answer JSON: ${text.slice(0, 300)}`);
  }
  const problem = target.expect(body);
  if (problem) throw new Error(`${target.name}: ${url} answered unexpectedly: ${problem}`);
}

/**
 * Each distinct request once before the load: a target that answers wrongly (401, empty page, …)
 * would otherwise be measured at full speed and compared as if it did the real work.
 */
export async function verifyTarget(target: Target): Promise<void> {
  if (!target.requests) {
    await verifyOne(target, target.url, { method: target.method ?? 'GET', ...(target.body === undefined ? {} : { body: target.body }) });
    return;
  }
  const seen = new Set<string>();
  for (const request of target.requests) {
    const key = JSON.stringify(request);
    if (seen.has(key)) continue;
    seen.add(key);
    await verifyOne(target, new URL(request.path, target.url).href, request);
  }
}

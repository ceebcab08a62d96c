import autocannon from 'autocannon';
import type { Result } from 'autocannon';
import type { BenchRequest } from './bench-request.js';

export type MeasureOptions = {
  /** Label in the table and the JSON. */
  name: string;
  headers?: Record<string, string>;
  /** GET by default; a POST sends `body` as JSON on every request. */
  method?: 'GET' | 'POST';
  body?: string;
  /** Rotated over instead of one request: each connection sends them in order, then again (`url` gives the host). */
  requests?: BenchRequest[];
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  /** Aborting stops the running load at once and rejects. */
  signal: AbortSignal;
};

export type Measurement = {
  name: string;
  url: string;
  connections: number;
  durationSeconds: number;
  /** Mean of the per-second request counts (autocannon's "Req/Sec avg"). */
  requestsPerSecond: number;
  totalRequests: number;
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  /** Socket errors, timeouts included. */
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  warmup: { requests: number; non2xx: number; errors: number; timeouts: number };
};

function load(url: string, options: MeasureOptions, seconds: number): Promise<Result> {
  const run = autocannon({
    url,
    method: options.method ?? 'GET',
    headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(options.requests
      ? {
          requests: options.requests.map((r) => ({
            method: r.method,
            path: r.path,
            headers: { ...(r.body === undefined ? {} : { 'content-type': 'application/json' }), ...r.headers },
            ...(r.body === undefined ? {} : { body: r.body }),
          })),
        }
      : {}),
    connections: options.connections,
    duration: seconds,
    title: options.name,
  });
  const stop = () => run.stop();
  options.signal.addEventListener('abort', stop, { once: true });
  return Promise.resolve(run).finally(() => options.signal.removeEventListener('abort', stop));
}

/** Warm-up then a measured run of `url` (GET, POST with a JSON body, or a list of requests) with autocannon, from this process over loopback. */
export async function measure(url: string, options: MeasureOptions): Promise<Measurement> {
  if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(url)) throw new Error(`bench targets must be on 127.0.0.1: ${url}`);
  options.signal.throwIfAborted();
  const warmup = await load(url, options, options.warmupSeconds);
  options.signal.throwIfAborted();
  const result = await load(url, options, options.durationSeconds);
  options.signal.throwIfAborted();
  return {
    name: options.name,
    url,
    connections: options.connections,
    durationSeconds: result.duration,
    requestsPerSecond: result.requests.average,
    totalRequests: result.requests.total ?? 0,
    latencyMs: {
      mean: result.latency.mean,
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
    warmup: {
      requests: warmup.requests.total ?? 0,
      non2xx: warmup.non2xx,
      errors: warmup.errors,
      timeouts: warmup.timeouts,
    },
  };
}

/** Failed requests of the measured run: non-2xx answers plus socket errors (which include timeouts). */
export function failures(m: Measurement): number {
  return m.non2xx + m.errors;
}

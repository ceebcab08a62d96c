import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsRegistry } from './metrics.js';

/** Whether an `Authorization` header carries the metrics token (constant-time compare); no token configured = open. */
export function metricsAuthorised(header: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  const given = Buffer.from(match?.[1] ?? '');
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/**
 * The registry's text, followed by `extra` (the worker appends the Temporal SDK's own series,
 * read from the core runtime's Prometheus address). A failing extra source is skipped.
 */
export async function renderMetrics(extra?: () => Promise<string>): Promise<string> {
  const own = await metricsRegistry.metrics();
  if (!extra) return own;
  try {
    const more = await extra();
    return more ? `${own}\n${more}` : own;
  } catch {
    return own;
  }
}

export type MetricsServer = { port: number; close(): Promise<void> };

/**
 * `/metrics` on a listener of its own (docs/operations.md "Metrics"), meant for an internal address: the
 * API's `METRICS_PORT`, the worker's `WORKER_METRICS_PORT`, both on `METRICS_HOST`. With
 * `METRICS_TOKEN` set a scraper must send it as a bearer token (401 otherwise).
 */
export async function serveMetrics(options: { host: string; port: number; token?: string | undefined; extra?: () => Promise<string> }): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found');
      return;
    }
    if (!metricsAuthorised(req.headers.authorization, options.token)) {
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer' }).end('unauthorised');
      return;
    }
    renderMetrics(options.extra).then(
      (text) => res.writeHead(200, { 'content-type': metricsRegistry.contentType, 'cache-control': 'no-store' }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Reads a Prometheus endpoint's text (the Temporal core runtime's), with a short timeout. */
export async function scrapeText(url: string, timeoutMs = 2000): Promise<string> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) return '';
  return res.text();
}

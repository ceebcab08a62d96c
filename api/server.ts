import type { AddressInfo } from 'node:net';
import { type Http2Bindings, type HttpBindings, type ServerType, serve } from '@hono/node-server';

/** What `serveApp` needs of an app: Hono's `fetch`, which takes the Node bindings as its env. */
export type FetchApp = { fetch: (request: Request, env: HttpBindings | Http2Bindings) => Response | Promise<Response> };

export type ServedApp = {
  server: ServerType;
  /** The port actually bound (the given one, or the one picked for port 0). */
  port: number;
  /**
   * Stops accepting connections, waits for open connections to close, then for requests still
   * running (even those whose client went away, up to `drainMs`), so the caller may close the pool.
   */
  stop(options?: { drainMs?: number }): Promise<void>;
};

/**
 * The one way the API is served, by `api/main.ts` and by the test platform alike. The Node
 * bindings (the socket) are handed to the app on every request: `getConnInfo`, and so the client
 * address in login logs, sessions and the per-address login throttle, depends on them.
 */
export async function serveApp(app: FetchApp, options: { hostname: string; port: number }): Promise<ServedApp> {
  let inFlight = 0;
  const fetch = async (request: Request, env: HttpBindings | Http2Bindings) => {
    inFlight += 1;
    try {
      return await app.fetch(request, env);
    } finally {
      inFlight -= 1;
    }
  };
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch, hostname: options.hostname, port: options.port }, () => {
      s.off('error', reject);
      resolve(s);
    });
    s.once('error', reject);
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    async stop({ drainMs = 10_000 } = {}) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (let waited = 0; waited < drainMs && inFlight > 0; waited += 100) await new Promise((r) => setTimeout(r, 100));
    },
  };
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { readRequestBody } from './body.js';
import { createSandboxControl } from './control.js';
import { createControlRoutes } from './control-routes.js';
import { applyFaults } from './faults.js';
import { UPSTREAM_FINANCE_ROUTES } from './routes.js';
import { SANDBOX_MESSAGES } from './messages.js';
import { createSandboxState, type SandboxState } from './state.js';
import { verifyToken } from './tokens.js';
import type { SandboxRoute } from './route-types.js';
import type { UpstreamFinanceSandbox, UpstreamFinanceSandboxOptions } from './types.js';

function mountRoute(app: Hono, state: SandboxState, route: SandboxRoute): void {
  app.on(route.method, route.path, async (c) => {
    const account = route.auth === 'none' ? null : await verifyToken(state, c.req.header('authorization'));
    if (route.auth === 'required' && !account) {
      state.counters.rejectedTokens += 1;
      return c.json({ status: 405, msg: SANDBOX_MESSAGES.tokenInvalid, data: {} });
    }
    if (route.auth === 'optional' && !account) state.counters.anonymousCatalogueReads += 1;
    const answer = await route.handle({ state, account, query: c.req.query(), body: await readRequestBody(c.req.raw) });
    return c.json({ status: answer.status, msg: answer.msg, ...answer.top, data: answer.data });
  });
}

function createSandboxApp(state: SandboxState): Hono {
  const app = new Hono();
  app.route('/__control', createControlRoutes(createSandboxControl(state)));
  app.use('*', async (c, next) => {
    if (c.req.path.startsWith('/__control')) return next();
    state.counters.paths[c.req.path] = (state.counters.paths[c.req.path] ?? 0) + 1;
    const failure = await applyFaults(state, c);
    if (failure) return failure;
    return next();
  });
  for (const route of UPSTREAM_FINANCE_ROUTES) mountRoute(app, state, route);
  app.notFound((c) => c.html('<html><body><h1>404 Not Found</h1></body></html>', 404));
  app.onError((_err, c) => c.html('<html><body><h1>500 Internal Server Error</h1></body></html>', 500));
  return app;
}

/** A real HTTP server speaking the finance-style upstream protocol (see docs in the spec folder). */
export async function startUpstreamFinanceSandbox(options: UpstreamFinanceSandboxOptions = {}): Promise<UpstreamFinanceSandbox> {
  const state = createSandboxState(options);
  const app = createSandboxApp(state);
  const server: Server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    control: createSandboxControl(state),
    stop: () =>
      new Promise<void>((resolve) => {
        state.stopped.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

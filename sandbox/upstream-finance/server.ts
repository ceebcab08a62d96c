import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { formString, readRequestBody } from './body.js';
import { createSandboxControl } from './control.js';
import { createControlRoutes } from './control-routes.js';
import { createConsoleUpgrade } from './console/upgrade.js';
import { applyFaultsAfter, applyFaultsBefore } from './faults.js';
import { UPSTREAM_FINANCE_ROUTES } from './routes.js';
import { SANDBOX_MESSAGES } from './messages.js';
import { createStateSaver, restoreSandboxState } from './persistence.js';
import { createSandboxState, type SandboxState } from './state.js';
import { verifyToken } from './tokens.js';
import type { SandboxRoute } from './route-types.js';
import type { SandboxAnswer, SandboxRequestInput, UpstreamFinanceSandbox, UpstreamFinanceSandboxOptions } from './types.js';

function authScheme(authorization: string): string {
  return /^(\S+)\s/.exec(authorization)?.[1] ?? '';
}

function recordModuleCall(state: SandboxState, c: Context, input: SandboxRequestInput): void {
  const method = c.req.method === 'GET' ? 'GET' : 'POST';
  const hostId = Number(input.params['hostId'] ?? input.query['id']);
  const token = /^\S+\s+(\S+)$/.exec(input.authorization)?.[1] ?? null;
  state.ledger.moduleCalls.push({
    method,
    path: c.req.path,
    scheme: authScheme(input.authorization),
    hostId: Number.isInteger(hostId) ? hostId : null,
    query: method === 'GET' ? { id: input.query['id'] ?? null, key: input.query['key'] ?? null, jwtMatchesHeader: token !== null && input.query['jwt'] === token } : null,
    func: formString(input.body, 'func') ?? null,
  });
}

function rejectToken(state: SandboxState, c: Context, msg: string = SANDBOX_MESSAGES.tokenInvalid): Response {
  state.counters.rejectedTokens += 1;
  return c.json({ status: 405, msg, data: {} });
}

async function answerRoute(state: SandboxState, c: Context, route: SandboxRoute): Promise<Response> {
  const input: SandboxRequestInput = {
    query: c.req.query(),
    body: await readRequestBody(c.req.raw),
    params: c.req.param(),
    authorization: c.req.header('authorization') ?? '',
    origin: new URL(c.req.url).origin,
  };
  const account = route.auth === 'none' ? null : await verifyToken(state, input.authorization);
  let answer: SandboxAnswer;
  if (route.auth === 'none' || route.auth === 'optional') {
    if (route.auth === 'optional' && !account) state.counters.anonymousCatalogueReads += 1;
    answer = await route.handle({ ...input, state, account });
  } else {
    if (route.auth === 'module') {
      recordModuleCall(state, c, input);
      if (account && authScheme(input.authorization).toUpperCase() !== 'JWT') return rejectToken(state, c, SANDBOX_MESSAGES.moduleSchemeInvalid);
    }
    if (!account) return rejectToken(state, c);
    answer = await route.handle({ ...input, state, account });
  }
  return c.json({ status: answer.status, msg: answer.msg, ...answer.top, data: answer.data });
}

function mountRoute(app: Hono, state: SandboxState, route: SandboxRoute): void {
  app.on(route.method, route.path, (c) => answerRoute(state, c, route));
}

function createSandboxApp(state: SandboxState, changed: () => void): Hono {
  const app = new Hono();
  // Any request may change what is kept (a poll moves a host to Active): saved shortly after.
  app.use('*', async (_c, next) => {
    await next();
    changed();
  });
  app.route('/__control', createControlRoutes(createSandboxControl(state)));
  app.use('*', async (c, next) => {
    if (c.req.path.startsWith('/__control')) return next();
    state.counters.paths[c.req.path] = (state.counters.paths[c.req.path] ?? 0) + 1;
    const failure = await applyFaultsBefore(state, c);
    if (failure) return failure;
    await next();
    const late = await applyFaultsAfter(state, c);
    if (late) c.res = late;
  });
  for (const route of UPSTREAM_FINANCE_ROUTES) mountRoute(app, state, route);
  app.notFound((c) => c.html('<html><body><h1>404 Not Found</h1></body></html>', 404));
  app.onError((_err, c) => c.html('<html><body><h1>500 Internal Server Error</h1></body></html>', 500));
  return app;
}

/** A real HTTP server speaking the finance-style upstream protocol (see docs in the spec folder). */
export async function startUpstreamFinanceSandbox(options: UpstreamFinanceSandboxOptions = {}): Promise<UpstreamFinanceSandbox> {
  const state = createSandboxState(options);
  const saver = options.stateFile ? createStateSaver(state, options.stateFile) : null;
  if (options.stateFile) restoreSandboxState(state, options.stateFile);
  const app = createSandboxApp(state, () => saver?.changed());
  const server: Server = createServer(getRequestListener(app.fetch));
  const consoleServer = createConsoleUpgrade(state);
  server.on('upgrade', consoleServer.handleUpgrade);
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
        consoleServer.close();
        server.close(() => {
          saver?.flush();
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

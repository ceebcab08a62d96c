import { Hono } from 'hono';
import { readRequestBody, formString } from './body.js';
import type { FaultMode, UpstreamFinanceSandboxControl } from './types.js';

const FAULT_MODES: FaultMode[] = ['html500', 'maintenance', 'timeout'];

function isFaultMode(value: string | undefined): value is FaultMode {
  return FAULT_MODES.some((mode) => mode === value);
}

/** The same controls over HTTP under `/__control/*` (for `npm run dev` and other processes). */
export function createControlRoutes(control: UpstreamFinanceSandboxControl): Hono {
  const routes = new Hono();
  routes.post('/expire-tokens', (c) => {
    control.expireTokens();
    return c.json({ ok: true });
  });
  routes.post('/latency', async (c) => {
    const ms = Number(formString(await readRequestBody(c.req.raw), 'ms'));
    if (!Number.isFinite(ms) || ms < 0) return c.json({ ok: false, error: 'ms must be a non-negative number' }, 400);
    control.setLatency(ms);
    return c.json({ ok: true });
  });
  routes.post('/fail-next', async (c) => {
    const body = await readRequestBody(c.req.raw);
    const count = Number(formString(body, 'count') ?? '1');
    const mode = formString(body, 'mode');
    if (!Number.isInteger(count) || count < 0 || !isFaultMode(mode)) {
      return c.json({ ok: false, error: `count must be a non-negative integer, mode one of ${FAULT_MODES.join(', ')}` }, 400);
    }
    control.failNext(count, mode);
    return c.json({ ok: true });
  });
  routes.get('/counters', (c) => c.json(control.counters()));
  routes.post('/reset-counters', (c) => {
    control.resetCounters();
    return c.json({ ok: true });
  });
  routes.get('/purchases', (c) => c.json(control.purchases()));
  routes.post('/seed-hosts', async (c) => {
    const body = await readRequestBody(c.req.raw);
    const count = Number(formString(body, 'count'));
    if (!Number.isInteger(count) || count < 0) return c.json({ ok: false, error: 'count must be a non-negative integer' }, 400);
    try {
      control.seedHosts(count, formString(body, 'username'));
    } catch (err) {
      return c.json({ ok: false, error: (err as Error).message }, 404);
    }
    return c.json({ ok: true });
  });
  routes.post('/credit', async (c) => {
    const body = await readRequestBody(c.req.raw);
    try {
      control.setCredit(formString(body, 'amount') ?? '', formString(body, 'username'));
    } catch (err) {
      return c.json({ ok: false, error: (err as Error).message }, 400);
    }
    return c.json({ ok: true });
  });
  return routes;
}

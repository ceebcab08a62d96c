import { Hono, type Context } from 'hono';
import { readRequestBody, formString, type FormValue } from './body.js';
import {
  LIST_TOTAL_SHAPES,
  type FaultMode,
  type ListTotalShape,
  type SandboxBillInput,
  type SandboxHostPatch,
  type SandboxHostStatus,
  type UpstreamFinanceSandboxControl,
} from './types.js';

const HOST_STATUSES: SandboxHostStatus[] = ['Pending', 'Active', 'Suspended', 'Terminated', 'Cancelled'];
const BILL_TYPES = ['product', 'renew', 'flow_packet', 'upgrade'] as const;
const BILL_STATUSES = ['Unpaid', 'Paid', 'Cancelled'] as const;

/** `status` (Pending, Active, Suspended, Terminated, Cancelled) and `next_due` (unix seconds or an ISO date); a string is the refusal. */
function hostPatch(body: Record<string, FormValue>): SandboxHostPatch | string {
  const patch: SandboxHostPatch = {};
  const status = formString(body, 'status');
  if (status !== undefined) {
    const known = HOST_STATUSES.find((s) => s === status);
    if (!known) return `status must be one of ${HOST_STATUSES.join(', ')}`;
    patch.status = known;
  }
  const due = formString(body, 'next_due');
  if (due !== undefined) {
    const seconds = /^\d+$/.test(due) ? Number(due) : Math.floor(Date.parse(due) / 1000);
    if (!Number.isSafeInteger(seconds) || seconds < 0) return 'next_due must be unix seconds or an ISO date';
    patch.nextDueDate = seconds;
  }
  return patch;
}

const FAULT_MODES: FaultMode[] = ['html500', 'maintenance', 'timeout', 'token_rejected', 'refused', 'not_found', 'out_of_stock', 'product_gone'];

function isFaultMode(value: string | undefined): value is FaultMode {
  return FAULT_MODES.some((mode) => mode === value);
}

function refuse(c: Context, error: string, status: 400 | 404 = 400) {
  return c.json({ ok: false, error }, status);
}

function intField(value: string | undefined): number | null {
  const n = Number(value);
  return value !== undefined && value.trim() !== '' && Number.isInteger(n) && n >= 0 ? n : null;
}

/** `cycles[monthly]=80.00` (form) or `{"cycles": {"monthly": "80.00"}}` (JSON) → a map of strings; absent → empty. */
function stringMap(value: FormValue | undefined): Record<string, string> | null {
  if (value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) return null;
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== 'string') return null;
    out[key] = v;
  }
  return out;
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
    if (!Number.isFinite(ms) || ms < 0) return refuse(c, 'ms must be a non-negative number');
    control.setLatency(ms);
    return c.json({ ok: true });
  });
  routes.post('/fail-next', async (c) => {
    const body = await readRequestBody(c.req.raw);
    const count = intField(formString(body, 'count') ?? '1');
    const mode = formString(body, 'mode');
    const path = formString(body, 'path');
    const after = formString(body, 'after_commit') ?? 'false';
    if (count === null || !isFaultMode(mode) || (path !== undefined && !path.startsWith('/')) || !['true', 'false', '1', '0'].includes(after)) {
      return refuse(c, `count must be a non-negative integer, mode one of ${FAULT_MODES.join(', ')}, path absolute, after_commit true or false`);
    }
    control.failNext(count, mode, { path, afterCommit: after === 'true' || after === '1' });
    return c.json({ ok: true });
  });
  routes.post('/clear-faults', (c) => {
    control.clearFaults();
    return c.json({ ok: true });
  });
  routes.get('/counters', (c) => c.json(control.counters()));
  routes.post('/reset-counters', (c) => {
    control.resetCounters();
    return c.json({ ok: true });
  });
  routes.get('/purchases', (c) => c.json(control.purchases()));
  routes.get('/ledger', (c) => c.json(control.ledger()));
  routes.post('/seed-hosts', async (c) => {
    const body = await readRequestBody(c.req.raw);
    const count = intField(formString(body, 'count'));
    if (count === null) return refuse(c, 'count must be a non-negative integer');
    try {
      control.seedHosts(count, formString(body, 'username'));
    } catch (err) {
      return refuse(c, (err as Error).message, 404);
    }
    return c.json({ ok: true });
  });
  routes.post('/credit', async (c) => {
    const body = await readRequestBody(c.req.raw);
    try {
      control.setCredit(formString(body, 'amount') ?? '', formString(body, 'username'));
    } catch (err) {
      return refuse(c, (err as Error).message);
    }
    return c.json({ ok: true });
  });
  routes.post('/stock', async (c) => {
    const body = await readRequestBody(c.req.raw);
    const pid = intField(formString(body, 'pid'));
    const raw = formString(body, 'qty');
    const qty = raw === undefined || raw === '' ? null : intField(raw);
    if (pid === null || (raw !== undefined && raw !== '' && qty === null)) return refuse(c, 'pid must be a product id, qty a non-negative integer or empty');
    try {
      control.setStock(pid, qty);
    } catch (err) {
      return refuse(c, (err as Error).message, 404);
    }
    return c.json({ ok: true });
  });
  routes.post('/prices', async (c) => {
    const body = await readRequestBody(c.req.raw);
    const pid = intField(formString(body, 'pid'));
    const reset = formString(body, 'reset');
    if (reset === 'true' || reset === '1') {
      if (pid === null && formString(body, 'pid') !== undefined) return refuse(c, 'pid must be a product id');
      control.resetPrices(pid ?? undefined);
      return c.json({ ok: true });
    }
    const cycles = stringMap(body['cycles'] ?? body['cycle']);
    const subs = stringMap(body['subs'] ?? body['sub']);
    if (pid === null || cycles === null || subs === null) {
      return refuse(c, 'pid must be a product id, cycles[<cycle>] a price, subs[<sub-option id>] a monthly price');
    }
    try {
      control.setPrices(pid, { cycles, subs });
    } catch (err) {
      return refuse(c, (err as Error).message);
    }
    return c.json({ ok: true });
  });
  routes.post('/provisioning-delay', async (c) => {
    const body = await readRequestBody(c.req.raw);
    const polls = intField(formString(body, 'polls') ?? '0');
    const ms = intField(formString(body, 'ms') ?? '0');
    if (polls === null || ms === null) return refuse(c, 'polls and ms must be non-negative integers');
    control.setProvisioningDelay({ polls, ms });
    return c.json({ ok: true });
  });
  routes.post('/partial-payments', async (c) => {
    const count = intField(formString(await readRequestBody(c.req.raw), 'count') ?? '1');
    if (count === null) return refuse(c, 'count must be a non-negative integer');
    control.partialPayments(count);
    return c.json({ ok: true });
  });
  routes.post('/list-total', async (c) => {
    const shape = formString(await readRequestBody(c.req.raw), 'shape') ?? '';
    if (!(LIST_TOTAL_SHAPES as readonly string[]).includes(shape)) return refuse(c, `shape must be one of ${LIST_TOTAL_SHAPES.join(', ')}`);
    control.answerListTotalAs(shape as ListTotalShape);
    return c.json({ ok: true });
  });
  routes.post('/remove-host', async (c) => {
    const hostId = intField(formString(await readRequestBody(c.req.raw), 'host_id'));
    if (hostId === null) return refuse(c, 'host_id must be a host id');
    return control.removeHost(hostId) ? c.json({ ok: true }) : refuse(c, 'no such host', 404);
  });
  routes.post('/defer-state-actions', async (c) => {
    const count = intField(formString(await readRequestBody(c.req.raw), 'count') ?? '1');
    if (count === null) return refuse(c, 'count must be a non-negative integer');
    control.deferStateActions(count);
    return c.json({ ok: true });
  });
  routes.post('/fail-console', async (c) => {
    const body = await readRequestBody(c.req.raw);
    const count = intField(formString(body, 'count') ?? '1');
    const mode = formString(body, 'mode');
    if (count === null || (mode !== 'unavailable' && mode !== 'auth_failed')) return refuse(c, 'count must be a non-negative integer, mode unavailable or auth_failed');
    control.failConsole(count, mode);
    return c.json({ ok: true });
  });
  routes.post('/close-consoles', (c) => c.json({ ok: true, closed: control.closeConsoles() }));
  routes.post('/hosts', async (c) => {
    const body = await readRequestBody(c.req.raw);
    const patch = hostPatch(body);
    if (typeof patch === 'string') return refuse(c, patch);
    try {
      return c.json(control.addHost(patch, formString(body, 'username')));
    } catch (err) {
      return refuse(c, (err as Error).message, 404);
    }
  });
  routes.post('/hosts/:id', async (c) => {
    const hostId = intField(c.req.param('id'));
    const patch = hostPatch(await readRequestBody(c.req.raw));
    if (hostId === null) return refuse(c, 'id must be a host id');
    if (typeof patch === 'string') return refuse(c, patch);
    const host = control.updateHost(hostId, patch);
    return host ? c.json(host) : refuse(c, 'no such host', 404);
  });
  routes.post('/bills', async (c) => {
    const body = await readRequestBody(c.req.raw);
    const type = formString(body, 'type') ?? 'renew';
    const status = formString(body, 'status') ?? 'Paid';
    const hostIds = (formString(body, 'host_ids') ?? '').split(',').filter((v) => v.trim() !== '').map((v) => intField(v.trim()));
    const knownType = BILL_TYPES.find((t) => t === type);
    const knownStatus = BILL_STATUSES.find((t) => t === status);
    if (!knownType || !knownStatus || hostIds.some((id) => id === null)) {
      return refuse(c, `type must be one of ${BILL_TYPES.join(', ')}, status one of ${BILL_STATUSES.join(', ')}, host_ids comma-separated host ids`);
    }
    const input: SandboxBillInput = { type: knownType, status: knownStatus, total: formString(body, 'total') ?? '', hostIds: hostIds.filter((id) => id !== null) };
    const username = formString(body, 'username');
    if (username !== undefined) input.username = username;
    try {
      return c.json(control.addBill(input));
    } catch (err) {
      return refuse(c, (err as Error).message);
    }
  });
  routes.get('/hosts/:id', (c) => {
    const host = control.host(Number(c.req.param('id')));
    return host ? c.json(host) : refuse(c, 'no such host', 404);
  });
  routes.get('/invoices/:id', (c) => {
    const invoice = control.invoice(Number(c.req.param('id')));
    return invoice ? c.json(invoice) : refuse(c, 'no such invoice', 404);
  });
  routes.post('/invoices/:id/void', (c) => (control.voidBill(Number(c.req.param('id'))) ? c.json({ ok: true }) : refuse(c, 'no such unpaid invoice', 404)));
  return routes;
}

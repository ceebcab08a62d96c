import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstreamFinanceSandbox } from '../../sandbox/upstream-finance/server.js';
import { DEFAULT_SANDBOX_ACCOUNT } from '../../sandbox/upstream-finance/state.js';
import type { UpstreamFinanceSandbox } from '../../sandbox/upstream-finance/types.js';

type Envelope = { status: number; msg: string; data: Record<string, unknown>; jwt?: string };

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** The sandbox routes reconciliation needs: the bill list, and the controls that make hosts and bills not bought through us. */
describe('upstream finance sandbox: bill list and reconciliation controls', () => {
  let sandbox: UpstreamFinanceSandbox;
  let jwt: string;

  async function control(path: string, form: Record<string, string>) {
    const response = await fetch(`${sandbox.baseUrl}/__control${path}`, { method: 'POST', headers: FORM, body: new URLSearchParams(form).toString() });
    return { http: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function get(path: string): Promise<{ http: number; body: Envelope }> {
    const response = await fetch(`${sandbox.baseUrl}${path}`, { headers: { authorization: `Bearer ${jwt}` } });
    return { http: response.status, body: (await response.json()) as Envelope };
  }

  beforeAll(async () => {
    sandbox = await startUpstreamFinanceSandbox();
    const login = await fetch(`${sandbox.baseUrl}/finance_api_login`, {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ username: DEFAULT_SANDBOX_ACCOUNT.username, password: DEFAULT_SANDBOX_ACCOUNT.apiKey }).toString(),
    });
    jwt = ((await login.json()) as Envelope).jwt ?? '';
  });
  afterAll(() => sandbox?.stop());

  it('adds a host nobody bought (active, due in 30 days unless told) and lists it', async () => {
    const made = await control('/hosts', {});
    expect(made.http).toBe(200);
    expect(made.body).toMatchObject({ id: 5004, status: 'Active' });
    expect(Number(made.body['nextDueDate'])).toBeGreaterThan(Date.now() / 1000 + 29 * 86_400);
    const suspended = await control('/hosts', { status: 'Suspended', next_due: '2026-01-15T00:00:00Z' });
    expect(suspended.body).toMatchObject({ id: 5005, status: 'Suspended', nextDueDate: Date.parse('2026-01-15T00:00:00Z') / 1000 });
    const list = await get('/host/list?page=1&limit=100');
    expect(list.body.data['total']).toBe(5);
    const listed = (list.body.data['list'] as Array<Record<string, unknown>>).find((h) => h['id'] === 5005);
    expect(listed).toMatchObject({ domainstatus: 'Suspended', nextduedate: Date.parse('2026-01-15T00:00:00Z') / 1000 });
  });

  it('changes a host’s status and due date, and refuses an unknown host, status or date', async () => {
    const changed = await control('/hosts/5001', { status: 'Terminated', next_due: '1767225600' });
    expect(changed.body).toMatchObject({ id: 5001, status: 'Terminated', nextDueDate: 1767225600 });
    expect(sandbox.control.host(5001)).toMatchObject({ status: 'Terminated', nextDueDate: 1767225600 });
    const dueOnly = await control('/hosts/5001', { next_due: '1767312000' });
    expect(dueOnly.body).toMatchObject({ status: 'Terminated', nextDueDate: 1767312000 });
    expect((await control('/hosts/999999', { status: 'Active' })).http).toBe(404);
    expect((await control('/hosts/5001', { status: 'Expired' })).http).toBe(400);
    expect((await control('/hosts/5001', { next_due: 'yesterday' })).http).toBe(400);
    expect((await control('/hosts', { status: 'active' })).http).toBe(400);
    expect(sandbox.control.host(5001)).toMatchObject({ status: 'Terminated', nextDueDate: 1767312000 });
  });

  it('adds bills (paid by default) and pages them oldest first with limit as the page size', async () => {
    const paid = await control('/bills', { total: '59.00', host_ids: '5004' });
    expect(paid.body).toMatchObject({ type: 'renew', status: 'Paid', total: '59.00', credit: '59.00', hostIds: [5004] });
    const unpaid = await control('/bills', { total: '12.5', type: 'flow_packet', status: 'Unpaid', host_ids: '5004,5005' });
    expect(unpaid.body).toMatchObject({ type: 'flow_packet', status: 'Unpaid', total: '12.50', credit: '0.00', hostIds: [5004, 5005] });
    expect((await control('/bills', { total: 'abc' })).http).toBe(400);
    expect((await control('/bills', { total: '1.00', status: 'Refunded' })).http).toBe(400);
    expect((await control('/bills', { total: '1.00', host_ids: 'x' })).http).toBe(400);
    for (let i = 0; i < 3; i += 1) await control('/bills', { total: '1.00' });

    const first = await get('/billing/list?page=1&limit=2');
    expect(first.http).toBe(200);
    expect(first.body).toMatchObject({ status: 200, data: { total: 5, page: 1, limit: 2 } });
    const firstIds = (first.body.data['list'] as Array<Record<string, unknown>>).map((b) => b['id']);
    expect(firstIds).toEqual([paid.body['id'], unpaid.body['id']]);
    expect((first.body.data['list'] as Array<Record<string, unknown>>)[0]).toMatchObject({
      type: 'renew',
      status: 'Paid',
      total: '59.00',
      hostid: [5004],
      paid_time: expect.any(Number),
      create_time: expect.any(Number),
    });
    expect((first.body.data['list'] as Array<Record<string, unknown>>)[1]).toMatchObject({ status: 'Unpaid', paid_time: 0 });
    const third = await get('/billing/list?page=3&limit=2');
    expect((third.body.data['list'] as unknown[]).length).toBe(1);
    // `limit` above 100 is 100.
    expect((await get('/billing/list?page=1&limit=500')).body.data['limit']).toBe(100);
  });

  it('asks for a token, and a not_found fault answers an HTML 404 as an upstream without the endpoint would', async () => {
    const anonymous = await fetch(`${sandbox.baseUrl}/billing/list`);
    expect(((await anonymous.json()) as Envelope).status).toBe(405);
    const armed = await control('/fail-next', { count: '1', mode: 'not_found', path: '/billing/list' });
    expect(armed.http).toBe(200);
    const missing = await fetch(`${sandbox.baseUrl}/billing/list?page=1&limit=100`, { headers: { authorization: `Bearer ${jwt}` } });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('404');
    expect((await get('/billing/list?page=1&limit=100')).http).toBe(200);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startUpstreamFinanceSandbox } from '../../sandbox/upstream-finance/server.js';
import { DEFAULT_SANDBOX_ACCOUNT } from '../../sandbox/upstream-finance/state.js';
import type { UpstreamFinanceSandbox } from '../../sandbox/upstream-finance/types.js';

type Envelope = { status: number; msg: string; data: Record<string, unknown> };
type Cycle = { billingcycle: string; product_price: string };
type Sub = { id: number; pricing: Record<string, string> };
type Option = { id: number; sub: Sub[] };

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('upstream finance sandbox: price changes on command (/__control/prices)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-prices-'));
  const stateFile = join(dir, 'state.json');
  let sandbox: UpstreamFinanceSandbox;
  let jwt: string;

  async function login(): Promise<string> {
    const response = await fetch(`${sandbox.baseUrl}/finance_api_login`, {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ username: DEFAULT_SANDBOX_ACCOUNT.username, password: DEFAULT_SANDBOX_ACCOUNT.apiKey }).toString(),
    });
    return ((await response.json()) as { jwt: string }).jwt;
  }

  async function productConfig(pid: number): Promise<{ cycles: Cycle[]; options: Option[] }> {
    const response = await fetch(`${sandbox.baseUrl}/cart/get_product_config?pid=${pid}`, { headers: { authorization: `Bearer ${jwt}` } });
    const body = (await response.json()) as Envelope;
    const products = body.data['products'] as { cycle: Cycle[] };
    const groups = body.data['config_groups'] as Array<{ options: Option[] }>;
    return { cycles: products.cycle, options: groups.flatMap((g) => g.options) };
  }

  function priceOf(cycles: Cycle[], cycle: string): string | undefined {
    return cycles.find((c) => c.billingcycle === cycle)?.product_price;
  }

  function control(body: string, type: 'form' | 'json' = 'form'): Promise<Response> {
    return fetch(`${sandbox.baseUrl}/__control/prices`, {
      method: 'POST',
      headers: type === 'form' ? FORM : { 'content-type': 'application/json' },
      body,
    });
  }

  beforeAll(async () => {
    sandbox = await startUpstreamFinanceSandbox({ stateFile });
    jwt = await login();
  });

  beforeEach(() => sandbox.control.resetPrices());

  afterAll(async () => {
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('changes a cycle price and a sub-option price (form), seen by the product config and the catalogue', async () => {
    const before = await productConfig(101);
    expect(priceOf(before.cycles, 'monthly')).toBe('59.00');
    const response = await control('pid=101&cycles%5Bmonthly%5D=80&subs%5B1010102%5D=25');
    expect(await response.json()).toEqual({ ok: true });
    const after = await productConfig(101);
    expect(priceOf(after.cycles, 'monthly')).toBe('80.00');
    expect(priceOf(after.cycles, 'annually')).toBe('599.00');
    const cpu = after.options.find((o) => o.id === 10101);
    expect(cpu?.sub.find((s) => s.id === 1010102)?.pricing['monthly']).toBe('25.0000');
    expect(cpu?.sub.find((s) => s.id === 1010102)?.pricing['quarterly']).toBe('75.0000');
    const catalogue = (await (await fetch(`${sandbox.baseUrl}/cart/all`, { headers: { authorization: `Bearer ${jwt}` } })).json()) as Envelope;
    const groups = catalogue.data['groups'] as Array<{ products: Array<{ id: number; sale_price: string }> }>;
    expect(groups.flatMap((g) => g.products).find((p) => p.id === 101)?.sale_price).toBe('80.00');
  });

  it('takes JSON too, prices carts with the new price, and restores with reset', async () => {
    expect((await control(JSON.stringify({ pid: 101, cycles: { monthly: '90.50' } }), 'json')).status).toBe(200);
    const ref = { downstream_token: 'a'.repeat(32), downstream_url: 'https://platform.example.com', downstream_id: '1' };
    const add = await fetch(`${sandbox.baseUrl}/cart/add_to_shop`, {
      method: 'POST',
      headers: { ...FORM, authorization: `Bearer ${jwt}` },
      body: new URLSearchParams({ ...ref, pid: '101', billingcycle: 'monthly', qty: '1', 'configoption[10105]': '1', password: 'Sandbox2024pass' }).toString(),
    });
    expect(((await add.json()) as Envelope).status).toBe(200);
    const cart = await fetch(`${sandbox.baseUrl}/cart/settle`, { method: 'POST', headers: { ...FORM, authorization: `Bearer ${jwt}` }, body: new URLSearchParams(ref).toString() });
    const settled = (await cart.json()) as Envelope;
    expect(settled.status).toBe(200);
    // 90.50 base + one IP at 15.00 a month.
    expect(sandbox.control.invoice(settled.data['invoiceid'] as number)?.total).toBe('105.50');
    expect((await control('reset=true&pid=101')).status).toBe(200);
    expect(priceOf((await productConfig(101)).cycles, 'monthly')).toBe('59.00');
  });

  it('refuses an unknown product, cycle or sub-option and a bad amount, changing nothing', async () => {
    for (const body of ['pid=999&cycles%5Bmonthly%5D=1', 'pid=101&cycles%5Bweekly%5D=1', 'pid=101&subs%5B99999%5D=1', 'pid=101&cycles%5Bmonthly%5D=abc', 'pid=101&subs%5B1010102%5D=-3', 'cycles%5Bmonthly%5D=1']) {
      const response = await control(body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { ok: boolean }).ok).toBe(false);
    }
    expect(priceOf((await productConfig(101)).cycles, 'monthly')).toBe('59.00');
  });

  it('keeps changed prices across a restart (state file)', async () => {
    expect((await control('pid=202&cycles%5Bmonthly%5D=650')).status).toBe(200);
    await sandbox.stop();
    sandbox = await startUpstreamFinanceSandbox({ stateFile });
    jwt = await login();
    expect(priceOf((await productConfig(202)).cycles, 'monthly')).toBe('650.00');
  });
});

describe('upstream finance sandbox: a second upstream with its own price list, credit and hosts', () => {
  const account = { username: 'backup@example.com', apiKey: 'sandbox-api-key-0002' };
  let sandbox: UpstreamFinanceSandbox;

  async function monthly(pid: number): Promise<string | undefined> {
    const login = await fetch(`${sandbox.baseUrl}/finance_api_login`, {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ username: account.username, password: account.apiKey }).toString(),
    });
    const { jwt } = (await login.json()) as { jwt: string };
    const response = await fetch(`${sandbox.baseUrl}/cart/get_product_config?pid=${pid}`, { headers: { authorization: `Bearer ${jwt}` } });
    const body = (await response.json()) as Envelope;
    return (body.data['products'] as { cycle: Cycle[] }).cycle.find((c) => c.billingcycle === 'monthly')?.product_price;
  }

  beforeAll(async () => {
    sandbox = await startUpstreamFinanceSandbox({ accounts: [account], credit: '2000.00', hostsPerAccount: 0, prices: { 101: { cycles: { monthly: '49.00' } } } });
  });
  afterAll(() => sandbox?.stop());

  it('sells at its own prices, starts with its own credit and no hosts, and a reset returns to its own prices', async () => {
    expect(await monthly(101)).toBe('49.00');
    expect(await monthly(102)).toBe('79.00');
    expect(sandbox.control.credit()).toBe('2000.00');
    expect(sandbox.control.host(5001)).toBeNull();
    sandbox.control.setPrices(101, { cycles: { monthly: '45.00' } });
    expect(await monthly(101)).toBe('45.00');
    sandbox.control.resetPrices(101);
    expect(await monthly(101)).toBe('49.00');
    sandbox.control.setPrices(102, { cycles: { monthly: '70.00' } });
    sandbox.control.resetPrices();
    expect([await monthly(101), await monthly(102)]).toEqual(['49.00', '79.00']);
  });

  it('refuses a price list naming a product it does not sell', async () => {
    await expect(startUpstreamFinanceSandbox({ prices: { 999: { cycles: { monthly: '1.00' } } } })).rejects.toThrow('no such product: 999');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshSupplierBalances } from '../../../../domain/economics/funds.js';
import { forecastRunway } from '../../../../domain/economics/runway.js';
import { callSupplier } from '../../../../domain/suppliers/supplier-call.js';
import { money } from '../../../../lib/money.js';
import { registerClient, type TestClient } from '../../../helpers/billing.js';
import { expectError } from '../../../helpers/http.js';
import { createService, type ServicesPlatform, startServicesPlatform, takeHost } from '../../../helpers/services.js';

let platform: ServicesPlatform;
let client: TestClient;
let token: string;

beforeAll(async () => {
  platform = await startServicesPlatform();
  client = await registerClient(platform);
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

const base = '/api/v2/admin/economics/funds';
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000);

async function fundsOfSupplier() {
  const res = await platform.api.get(base, { token });
  expect(res.body.code, res.body.message).toBe(0);
  expect(res.body.data).toMatchObject({ page: 1, total: 1 });
  return res.body.data.list.find((r: { supplier_id: number }) => r.supplier_id === platform.supplierId);
}

async function runwayAlerts() {
  const res = await platform.api.get(`${base}/alerts`, { token, query: { kind: 'runway', supplier_id: platform.supplierId } });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data.list as Array<{ kind: string; balance: string; needed: string; message: string }>;
}

describe('upstream funds per supplier', () => {
  it('lists each supplier with the balance the balances task read', async () => {
    expect(await fundsOfSupplier()).toMatchObject({ supplier_code: 'hk-cloud', balance: null, read_at: null, awaiting_funds: 0, shortage_open: false, runway: null });
    platform.sandbox.control.setCredit('2345.60');
    expect(await refreshSupplierBalances(platform.deps)).toMatchObject({ suppliers: 1, read: 1, failed_supplier_ids: [], awaiting_funds: 0 });
    const row = await fundsOfSupplier();
    expect(row).toMatchObject({ balance: '2345.60', currency: 'CNY' });
    expect(row.read_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('forecasts the upstream cost of renewals due within runway_days and alerts once a day when the balance does not cover it', async () => {
    const config = await callSupplier(platform.deps, platform.supplierId, 'upstream.product_config', { pid: 101 });
    const monthly = (config['product'] as { pricing: Record<string, string> }).pricing['monthly'] ?? '0';
    expect(money(monthly).gt(0)).toBe(true);
    // Two bound services due within 30 days count; one due later and one without an upstream do not.
    await createService(platform, { userId: client.id, productId: platform.productId, hostId: takeHost(platform), nextDueAt: inDays(3) });
    await createService(platform, { userId: client.id, productId: platform.productId, hostId: takeHost(platform), nextDueAt: inDays(20) });
    await createService(platform, { userId: client.id, productId: platform.productId, hostId: takeHost(platform), nextDueAt: inDays(60) });
    await createService(platform, { userId: client.id, productId: platform.productId, nextDueAt: inDays(5) });
    const cost = money(monthly).times(2).toFixed(2);

    platform.sandbox.control.setCredit('1.00');
    const first = await forecastRunway(platform.deps);
    expect(first).toMatchObject({ days: 30, suppliers: [{ supplier_id: platform.supplierId, balance: '1.00', cost, renewals: 2, estimated: 0, covered: false, alerted: true }] });
    const second = await forecastRunway(platform.deps);
    expect(second.suppliers[0]).toMatchObject({ covered: false, alerted: false });
    const alerts = await runwayAlerts();
    expect(alerts).toEqual([expect.objectContaining({ kind: 'runway', balance: '1.00', needed: cost })]);
    expect(alerts[0]?.message).toMatch(/\p{Script=Han}/u);
    const told = await platform.api.get('/api/v2/admin/economics/alerts', { token, query: { kind: 'runway_short' } });
    expect(told.body.data.total).toBe(1);
    expect((await fundsOfSupplier()).runway).toMatchObject({ days: 30, cost, renewals: 2, estimated: 0, covered: false });

    platform.sandbox.control.setCredit('10000.00');
    expect((await forecastRunway(platform.deps)).suppliers[0]).toMatchObject({ covered: true, alerted: false });
    expect((await fundsOfSupplier()).runway).toMatchObject({ covered: true });
    expect(await runwayAlerts()).toHaveLength(1);
  });

  it('refuses bad list input with a Chinese message and changes nothing', async () => {
    expectError(await platform.api.get(`${base}/alerts`, { token, query: { kind: 'other' } }), 42200, 422);
    expectError(await platform.api.get(`${base}/alerts`, { token, query: { supplier_id: '0' } }), 42200, 422);
    expectError(await platform.api.get(base, { token, query: { page_size: '0' } }), 42200, 422);
    expectError(await platform.api.get(base, { token, query: { limit: '5' } }), 42200, 422);
    expectError(await platform.api.get(base, { token, query: { constructor: '1' } }), 42200, 422);
    expect(await runwayAlerts()).toHaveLength(1);
  });
});

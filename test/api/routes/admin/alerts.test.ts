import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne } from '../../../../db/sql.js';
import { raiseAdminAlert } from '../../../../domain/economics/alerts.js';
import { checkPriceDrift } from '../../../../domain/economics/price-drift.js';
import { expectError } from '../../../helpers/http.js';
import { startServicesPlatform, type ServicesPlatform } from '../../../helpers/services.js';

const base = '/api/v2/admin/economics/alerts';

let platform: ServicesPlatform;
let token: string;

type Alert = { id: number; kind: string; kind_label: string; severity: string; title: string; message: string; subject: Record<string, unknown>; state: string };

async function alerts(query: Record<string, string | number> = {}): Promise<{ list: Alert[]; total: number }> {
  const res = await platform.api.get(base, { token, query: { page_size: 100, ...query } });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data as { list: Alert[]; total: number };
}

beforeAll(async () => {
  platform = await startServicesPlatform();
  token = await platform.rootToken();
});

afterAll(async () => {
  await platform?.close();
});

describe('admin alerts of reseller economics', () => {
  it('raises one alert per price change, in the transaction of its finding, never one per run', async () => {
    expect((await alerts()).total).toBe(0);
    const rise = await fetch(`${platform.sandbox.baseUrl}/__control/prices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pid: 101, cycles: { monthly: '80.00' } }),
    });
    expect(rise.status).toBe(200);
    const first = await checkPriceDrift(platform.deps);
    expect(first.new_findings).toBeGreaterThan(0);
    await checkPriceDrift(platform.deps);
    const { list, total } = await alerts({ kind: 'price_drift' });
    expect(total).toBe(first.new_findings);
    const findings = await sqlOne<{ n: number }>(platform.deps, "SELECT count(*)::int AS n FROM upstream_price_findings WHERE state = 'open'", []);
    expect(total).toBe(findings?.n);
    const below = list.find((a) => a.severity === 'critical');
    expect(below).toMatchObject({ kind: 'price_drift', kind_label: '上游价格变化', state: 'open' });
    expect(below?.title).toMatch(/低于上游成本/);
    expect(below?.subject).toMatchObject({ product_id: platform.productId });
  });

  it('keeps one alert per key, answers the page object, counts open ones and is marked read once', async () => {
    const alert = { kind: 'funds_short' as const, key: 'test:funds:1', title: '上游余额不足', message: '测试' };
    expect(await raiseAdminAlert(platform.deps, alert)).toBe(true);
    expect(await raiseAdminAlert(platform.deps, alert)).toBe(false);
    const page = await alerts({ kind: 'funds_short', page: 1, page_size: 20 });
    expect(page).toMatchObject({ total: 1, page: 1, page_size: 20 });
    const id = page.list[0]!.id;

    const before = await platform.api.get(`${base}/summary`, { token });
    expect(before.body.data.open_by_kind.funds_short).toBe(1);
    const read = await platform.api.post(`${base}/${id}/acknowledge`, { token });
    expect(read.body.data).toMatchObject({ id, state: 'acknowledged' });
    const again = await platform.api.post(`${base}/${id}/acknowledge`, { token });
    expect(again.body.data.acknowledged_at).toBe(read.body.data.acknowledged_at);
    const open = (await platform.api.get(`${base}/summary`, { token })).body.data.open as number;
    const dashboard = await platform.api.get('/api/v2/admin/dashboard', { token });
    expect(dashboard.body.data.state.extras.open_economics_alerts).toBe(open);
    const after = await platform.api.get(`${base}/summary`, { token, query: { kind: 'funds_short' } });
    expect(after.body.data).toMatchObject({ total: 1, open: 0 });
    expect((await alerts({ state: 'acknowledged' })).list.map((a) => a.id)).toEqual([id]);
  });

  it('refuses bad filters and unknown ids in Chinese and changes nothing', async () => {
    const bad = await platform.api.get(base, { token, query: { kind: 'constructor' } });
    expectError(bad, 42200, 422);
    expect(bad.body.message).toMatch(/\p{Script=Han}/u);
    expectError(await platform.api.get(base, { token, query: { state: '__proto__' } }), 42200, 422);
    expectError(await platform.api.post(`${base}/999999/acknowledge`, { token }), 40400, 404);
    expectError(await platform.api.post(`${base}/abc/acknowledge`, { token }), 42200, 422);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne, sqlRows } from '../../../../db/sql.js';
import { watchFactGauges } from '../../../../domain/economics/fact-gauges.js';
import { saveSettings } from '../../../../domain/settings/settings.js';
import { callSupplier } from '../../../../domain/suppliers/supplier-call.js';
import { clearAllTokens } from '../../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { expectError } from '../../../helpers/http.js';
import { registerKnownSecret } from '../../../helpers/known-secrets.js';
import { createTestSupplier } from '../../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { startUpstreamForPlatform, type UpstreamSandbox } from '../../../helpers/upstream-supplier.js';

/**
 * The admin's view of supplier health: the list, one supplier, the hand reset of a breaker, the
 * dashboard's section and the gauges in `/metrics`, against the real upstream sandbox made to fail.
 */
const BASE = '/api/v2/admin/suppliers';
const METRICS_TOKEN = 'metrics-token-for-health-tests-0123456789';

let platform: TestPlatform;
let sandbox: UpstreamSandbox;
let token: string;
let down: { id: number; code: string };
let well: { id: number; code: string };

async function calls(supplierId: number, count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => callSupplier(platform.deps, supplierId, 'upstream.credit', {}).catch(() => null)));
}

/** The scrape, with the fact gauges served from the test's database (the API process does it in api/main.ts). */
async function metrics(): Promise<string> {
  const unwatch = watchFactGauges(platform.deps);
  try {
    return await (await fetch(`${platform.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  } finally {
    unwatch();
  }
}

beforeAll(async () => {
  clearAllTokens();
  registerKnownSecret(METRICS_TOKEN);
  platform = await startTestPlatform({ env: { METRICS_TOKEN } });
  token = await platform.rootToken();
  ({ sandbox } = await startUpstreamForPlatform(platform));
  down = await createTestSupplier(platform, sandbox.baseUrl, 'health-down');
  well = await createTestSupplier(platform, sandbox.baseUrl, 'health-well');
  await saveSettings(platform.deps, null, { 'economics.health_min_calls': 4, 'economics.health_failure_percent': 50 });
  await calls(well.id, 3);
  sandbox.control.failNext(6, 'html500');
  await calls(down.id, 6);
});
afterAll(async () => {
  await sandbox?.stop();
  await platform?.close();
});

describe('supplier health routes', () => {
  it('lists every supplier with its breaker and window, filtered by state', async () => {
    const res = await platform.api.get(`${BASE}/health`, { token });
    expect(res.body.code, res.body.message).toBe(0);
    const list = res.body.data.list as Array<Record<string, unknown>>;
    expect(list.find((h) => h['supplier_id'] === down.id)).toMatchObject({ code: 'health-down', state: 'open', episode: 1, calls: 6, failures: 6, failure_percent: 100, last_error_code: 'upstream_unavailable' });
    expect(list.find((h) => h['supplier_id'] === well.id)).toMatchObject({ state: 'closed', calls: 3, failures: 0, failure_percent: 0, opened_at: null });
    const open = await platform.api.get(`${BASE}/health`, { token, query: { state: 'open' } });
    expect((open.body.data.list as Array<{ supplier_id: number }>).map((h) => h.supplier_id)).toEqual([down.id]);
    expect(open.body.data.total).toBe(1);

    const one = await platform.api.get(`${BASE}/${down.id}/health`, { token });
    expect(one.body.data).toMatchObject({ supplier_id: down.id, state: 'open', window_minutes: 5 });
    expect(one.body.data.retry_at).toEqual(expect.any(String));
  });

  it('shows health on the dashboard and in /metrics', async () => {
    const dash = await platform.api.get('/api/v2/admin/dashboard', { token });
    expect(dash.body.data.state.extras.suppliers_down).toBe(1);
    expect(dash.body.data.state.supplier_health).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ supplier_id: down.id, state: 'open', calls: 6, failure_percent: 100 }),
        expect.objectContaining({ supplier_id: well.id, state: 'closed' }),
      ]),
    );
    const text = await metrics();
    expect(text).toContain('upstream_supplier_breaker{supplier="health-down",state="open"} 1');
    expect(text).toContain('upstream_supplier_breaker{supplier="health-down",state="closed"} 0');
    expect(text).toContain('upstream_supplier_breaker{supplier="health-well",state="closed"} 1');
    expect(text).toContain('upstream_supplier_failure_ratio{supplier="health-down"} 1');
    expect(text).toContain('upstream_supplier_window_calls{supplier="health-well"} 3');
    expect(text).toMatch(/upstream_supplier_latency_p95_ms\{supplier="health-down"\} \d+/);
    expect(text).toContain('admin_alerts_open{kind="supplier_down"} 1');
  });

  it('lets an admin close a breaker by hand, once, with the "back" alert', async () => {
    const res = await platform.api.post(`${BASE}/${down.id}/health/reset`, { token });
    expect(res.body.code, res.body.message).toBe(0);
    expect(res.body.message).toBe('熔断器已关闭');
    expect(res.body.data).toMatchObject({ state: 'closed', episode: 1, calls: 6 });
    const again = await platform.api.post(`${BASE}/${down.id}/health/reset`, { token });
    expect(again.body.data).toMatchObject({ state: 'closed', episode: 1 });
    const back = await sqlRows<{ alert_key: string; detail: Record<string, unknown> }>(platform.deps, "SELECT alert_key, detail FROM admin_alerts WHERE kind = 'supplier_up'", []);
    expect(back.map((a) => a.alert_key)).toEqual([`supplier-up:${down.id}:1`]);
    expect(back[0]?.detail['closed_by']).toEqual(expect.any(Number));
    // The admin audit has the reset.
    const audit = await sqlOne<{ n: number }>(platform.deps, "SELECT count(*)::int AS n FROM admin_audit_logs WHERE route LIKE '%/health/reset'", []);
    expect(audit?.n).toBeGreaterThanOrEqual(1);
  });

  it('answers bad input with a Chinese 4xx', async () => {
    const badState = await platform.api.get(`${BASE}/health`, { token, query: { state: 'broken' } });
    expectError(badState, 42200, 422);
    expect(badState.body.message).toMatch(/[\u4e00-\u9fff]/);
    expectError(await platform.api.get(`${BASE}/health`, { token, query: { limit: 5 } }), 42200, 422);
    expectError(await platform.api.get(`${BASE}/abc/health`, { token }), 42200, 422);
    const missing = await platform.api.get(`${BASE}/999999/health`, { token });
    expectError(missing, 40400, 404);
    expect(missing.body.message).toBe('供应商不存在');
    expectError(await platform.api.post(`${BASE}/999999/health/reset`, { token }), 40400, 404);
    expectError(await platform.api.get(`${BASE}/health`), 40100, 401);
  });
});

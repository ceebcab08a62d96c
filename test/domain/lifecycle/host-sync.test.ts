import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncUpstreamHosts } from '../../../domain/lifecycle/sync-upstream-hosts.js';
import { invokeSupplierPlugin } from '../../../domain/suppliers/supplier-plugin.js';
import { clearAllTokens } from '../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { SANDBOX_CREDENTIALS } from '../../../sandbox/launcher.js';
import { buildSandboxHost } from '../../../sandbox/upstream-finance/hosts-data.js';
import { startUpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/server.js';
import { createTestSupplier, createUser, daysFromNow, seedService, serviceEvents } from '../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { startUpstreamForPlatform, type UpstreamSandbox } from '../../helpers/upstream-supplier.js';

let platform: TestPlatform;
let big: UpstreamSandbox;
let flaky: UpstreamSandbox;
let bigSupplier: { id: number; code: string };
let flakySupplier: { id: number; code: string };
/** Host id of the n-th of the 150 hosts seeded on the big supplier (the account's first three were 5001-5003). */
const hostAt = (index: number) => 5004 + index;
const services: Record<string, number> = {};

beforeAll(async () => {
  clearAllTokens();
  platform = await startTestPlatform();
  ({ sandbox: big } = await startUpstreamForPlatform(platform));
  flaky = await startUpstreamFinanceSandbox({ accounts: [SANDBOX_CREDENTIALS.upstream] });
  big.control.seedHosts(150);
  bigSupplier = await createTestSupplier(platform, big.baseUrl, 'big-hk');
  flakySupplier = await createTestSupplier(platform, flaky.baseUrl, 'flaky-us');
  const userId = (await createUser(platform)).id;
  for (const index of [0, 3, 120, 149]) {
    services[`big${index}`] = await seedService(platform, { userId, nextDueAt: daysFromNow(20), upstream: { supplierId: bigSupplier.id, hostId: hostAt(index) } });
  }
  services['flaky'] = await seedService(platform, { userId, nextDueAt: daysFromNow(20), upstream: { supplierId: flakySupplier.id, hostId: 5001 } });
});
afterAll(async () => {
  await big?.stop();
  await flaky?.stop();
  await platform?.close();
  clearAllTokens();
});

async function service(key: string) {
  const row = await platform.deps.db.models.Service.findByPk(services[key]);
  if (!row) throw new Error('service gone');
  return row;
}

async function eventCount(): Promise<number> {
  return platform.deps.db.models.ServiceEvent.count({ where: { kind: 'sync' } });
}

describe('polling upstream hosts', () => {
  it('pages each supplier’s host list with limit=100 and updates status, IPs and the upstream due date; a failing supplier does not stop the others', async () => {
    flaky.control.failNext(3, 'html500', { path: '/host/list' });
    big.control.resetCounters();
    const lines = await syncUpstreamHosts(platform.deps);
    expect(lines).toEqual([
      { supplier_id: bigSupplier.id, supplier_code: 'big-hk', status: 'ok', hosts: 150, pages: 2, services: 4, changed: 4, missing: 0, error: null },
      { supplier_id: flakySupplier.id, supplier_code: 'flaky-us', status: 'failed', hosts: 0, pages: 0, services: 1, changed: 0, missing: 0, error: expect.stringMatching(/\p{Script=Han}/u) },
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/<html|Whoops/i);
    expect(big.control.counters().paths['/host/list']).toBe(2);

    for (const index of [0, 3, 120, 149]) {
      const host = buildSandboxHost(hostAt(index), index);
      const row = await service(`big${index}`);
      expect(row.upstream_status).toBe(host.status.toLowerCase());
      expect(row.ip).toBe(host.ip);
      expect(row.assigned_ips).toEqual(host.assignedIps);
      expect(row.upstream_due_at?.getTime()).toBe(host.nextDueDate * 1000);
      expect(row.upstream_synced_at).not.toBeNull();
      // The customer's due date is ours, never the upstream's.
      expect(row.next_due_at?.getTime()).toBeGreaterThan(Date.now());
    }
    expect((await service('big3')).upstream_status).toBe('suspended');
    expect(await service('flaky')).toMatchObject({ upstream_status: '', ip: '', upstream_synced_at: null });
    expect(await eventCount()).toBe(0);
  });

  it('changes nothing when polled again', async () => {
    const before = await Promise.all([0, 3, 120, 149].map(async (i) => (await service(`big${i}`)).toJSON()));
    const lines = await syncUpstreamHosts(platform.deps);
    expect(lines[0]).toMatchObject({ status: 'ok', services: 4, changed: 0, missing: 0 });
    const after = await Promise.all([0, 3, 120, 149].map(async (i) => (await service(`big${i}`)).toJSON()));
    const business = (row: Record<string, unknown>) => ({ ...row, upstream_synced_at: null, updated_at: null });
    expect(after.map(business)).toEqual(before.map(business));
    expect(await eventCount()).toBe(0);
  });

  it('records an upstream status change as an event', async () => {
    const result = await invokeSupplierPlugin(platform.deps, bigSupplier.id, { action: 'upstream.host_action', payload: { host_id: hostAt(0), action: 'suspend' } });
    expect(result.success).toBe(true);
    const [line] = await syncUpstreamHosts(platform.deps);
    expect(line).toMatchObject({ changed: 1, missing: 0 });
    expect((await service('big0')).upstream_status).toBe('suspended');
    // The local status is the lifecycle's: an upstream suspension is noted, not copied.
    expect((await service('big0')).status).toBe('active');
    const events = await serviceEvents(platform, services['big0'] as number);
    expect(events.map((e) => [e.kind, e.stage, e.status, e.message])).toEqual([['sync', 'host_status', 'info', '上游主机状态由 active 变为 suspended']]);
  });

  it('marks a service whose host disappeared once, with an event, and recovers when the failing supplier answers again', async () => {
    big.control.removeHost(hostAt(120));
    flaky.control.clearFaults();
    const lines = await syncUpstreamHosts(platform.deps);
    expect(lines).toEqual([
      expect.objectContaining({ supplier_code: 'big-hk', status: 'ok', hosts: 149, changed: 1, missing: 1 }),
      expect.objectContaining({ supplier_code: 'flaky-us', status: 'ok', hosts: 3, pages: 1, services: 1, changed: 1, error: null }),
    ]);
    expect((await service('big120')).upstream_status).toBe('missing');
    const events = await serviceEvents(platform, services['big120'] as number);
    expect(events.map((e) => [e.stage, e.status])).toEqual([['host_missing', 'failed']]);
    expect(events[0]?.message).toBe(`上游主机列表中已找不到该服务的主机（主机 ID ${hostAt(120)}），请联系供应商核实`);
    expect((await service('flaky')).ip).toBe(buildSandboxHost(5001, 0).ip);

    const again = await syncUpstreamHosts(platform.deps);
    expect(again.map((l) => [l.changed, l.missing])).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect(await serviceEvents(platform, services['big120'] as number)).toHaveLength(1);
  });

  it('polls no supplier without services on upstream hosts', async () => {
    await platform.deps.db.sequelize.query(`UPDATE services SET status = 'terminated' WHERE id = ${services['flaky']}`);
    flaky.control.resetCounters();
    const lines = await syncUpstreamHosts(platform.deps);
    expect(lines.map((l) => l.supplier_code)).toEqual(['big-hk']);
    expect(flaky.control.counters().paths['/host/list']).toBeUndefined();
  });
});

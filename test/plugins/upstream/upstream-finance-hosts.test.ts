import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostDetail, HostListItem } from '../../../plugins/upstream/upstream_finance/normalise/host.js';
import { clearAllTokens } from '../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { startUpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/server.js';
import type { UpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/types.js';
import { field, runFinance } from './finance-harness.js';

describe('upstream finance hosts', () => {
  let sandbox: UpstreamFinanceSandbox;

  beforeAll(async () => {
    clearAllTokens();
    sandbox = await startUpstreamFinanceSandbox();
  });

  afterAll(async () => {
    await sandbox.stop();
    clearAllTokens();
  });

  it('normalises the host detail without the password', async () => {
    const result = await runFinance(sandbox, 'upstream.host_detail', { payload: { host_id: 5001 } });
    expect(result.success, result.message).toBe(true);
    const host = field<HostDetail>(result.data, 'host');
    expect(host).toEqual({
      id: 5001,
      product_id: 101,
      product_name: '香港云服务器 标准型',
      hostname: 'srv5001.example.net',
      status: 'active',
      ip: '203.0.113.3',
      assigned_ips: ['198.51.100.3', '198.51.100.4'],
      username: 'root',
      port: 22,
      os: 'CentOS 7.9 64位',
      registered_at: '2024-01-01 08:00:00',
      next_due_at: '2024-01-31 08:00:00',
      billing_cycle: 'monthly',
      amount: '59.00',
      bandwidth: { limit_gb: 1000, used_gb: '0.00', extra_gb: 0 },
      has_password: true,
    });
    expect(JSON.stringify(result)).not.toContain('Pw-5001-sandbox!');
  });

  it('reveals the password only through host_credentials', async () => {
    const result = await runFinance(sandbox, 'upstream.host_credentials', { payload: { host_id: 5003 } });
    expect(result).toMatchObject({
      success: true,
      data: { credentials: { host_id: 5003, username: 'administrator', port: 3389, password: 'Pw-5003-sandbox!' } },
    });
  });

  it('a host of another account or no host at all is a permanent failure', async () => {
    const result = await runFinance(sandbox, 'upstream.host_detail', { payload: { host_id: 424242 } });
    expect(result).toMatchObject({ success: false, data: { error_kind: 'permanent', upstream_status: 406 } });
    const bad = await runFinance(sandbox, 'upstream.host_detail', { payload: { host_id: 'abc' } });
    expect(bad).toMatchObject({ success: false, message: '参数错误：host_id 必须为正整数' });
  });

  it('pages the host list with limit=100 and the total to fetch every host', async () => {
    sandbox.control.seedHosts(150);
    sandbox.control.resetCounters();
    const result = await runFinance(sandbox, 'upstream.host_list');
    expect(result.success, result.message).toBe(true);
    const hosts = field<HostListItem[]>(result.data, 'hosts');
    expect(result.data).toMatchObject({ total: 150, pages: 2, complete: true });
    expect(hosts).toHaveLength(150);
    expect(new Set(hosts.map((h) => h.id)).size).toBe(150);
    expect(sandbox.control.counters().paths['/host/list']).toBe(2);
    expect(hosts[0]).toMatchObject({ status: 'active', billing_cycle: 'monthly', next_due_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} /) });
    expect(hosts.some((h) => h.status === 'suspended')).toBe(true);
    // Even-indexed seeded hosts have two extra IPs; the list carries them (the main IP never repeats among them).
    const first = hosts[0] as HostListItem;
    expect(first.assigned_ips).toEqual([expect.stringMatching(/^198\.51\.100\.\d+$/), expect.stringMatching(/^198\.51\.100\.\d+$/)]);
    expect(hosts[1]?.assigned_ips).toEqual([]);
  });

  it('lists a host the upstream removed no more', async () => {
    sandbox.control.seedHosts(3);
    const before = field<HostListItem[]>((await runFinance(sandbox, 'upstream.host_list')).data, 'hosts').map((h) => h.id);
    expect(sandbox.control.removeHost(before[1] as number)).toBe(true);
    const after = await runFinance(sandbox, 'upstream.host_list');
    expect(after.data).toMatchObject({ total: 2, complete: true });
    expect(field<HostListItem[]>(after.data, 'hosts').map((h) => h.id)).toEqual([before[0], before[2]]);
    const gone = await runFinance(sandbox, 'upstream.host_detail', { payload: { host_id: before[1] } });
    expect(gone.data).toMatchObject({ error_kind: 'permanent', error_code: 'not_found' });
  });

  it('an empty host list needs no second page', async () => {
    sandbox.control.seedHosts(0);
    sandbox.control.resetCounters();
    const result = await runFinance(sandbox, 'upstream.host_list');
    expect(result.data).toMatchObject({ hosts: [], total: 0, pages: 0, complete: true });
    expect(sandbox.control.counters().paths['/host/list']).toBe(1);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { money } from '../../../lib/money.js';
import { redactSummary } from '../../../plugins/runtime/redact.js';
import type { HostDetail } from '../../../plugins/upstream/upstream_finance/normalise/host.js';
import { clearAllTokens } from '../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { startUpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/server.js';
import type { UpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/types.js';
import { CLOUD_ORDER, buyCloudHost, field, newDownstream, runFinance, runOk } from './finance-harness.js';

/** `YYYY-MM-DD HH:mm:ss` (Asia/Shanghai) one month on, as the upstream moves a monthly due date. */
function oneMonthLater(dueAt: string): string {
  const [date = '', time = ''] = dueAt.split(' ');
  const [y, m, d] = date.split('-').map(Number);
  const next = new Date(Date.UTC(y ?? 0, m ?? 0, 1));
  const lastDay = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  const day = Math.min(d ?? 1, lastDay);
  return `${next.getUTCFullYear()}-${String(next.getUTCMonth() + 1).padStart(2, '0')}-${String(day).padStart(2, '0')} ${time}`;
}

describe('upstream finance host operations: renew, traffic packages, host and module actions', () => {
  let sandbox: UpstreamFinanceSandbox;
  let hostId: number;

  beforeAll(async () => {
    clearAllTokens();
    sandbox = await startUpstreamFinanceSandbox();
    hostId = (await buyCloudHost(sandbox, newDownstream())).host_id;
  });

  beforeEach(() => sandbox.control.clearFaults());

  afterAll(async () => {
    await sandbox.stop();
    clearAllTokens();
  });

  async function detail(id: number): Promise<HostDetail> {
    return field<HostDetail>(await runOk(sandbox, 'upstream.host_detail', { host_id: id }), 'host');
  }

  it('renews once: an invoice, paid, moves the due date by the cycle (renewals counter 1)', async () => {
    const before = await detail(hostId);
    const renew = await runOk(sandbox, 'upstream.host_renew', { host_id: hostId, billing_period: 'monthly' });
    const invoiceId = field<number>(renew, 'invoice_id');
    expect(renew).toEqual({ host_id: hostId, invoice_id: invoiceId, billing_period: 'monthly', amount: '124.00' });
    expect(await detail(hostId)).toMatchObject({ next_due_at: before.next_due_at });

    const pay = await runOk(sandbox, 'upstream.invoice_pay', { invoice_id: invoiceId });
    expect(pay).toMatchObject({ paid: true, status: 'paid' });
    const after = await detail(hostId);
    expect(after.next_due_at).toBe(oneMonthLater(before.next_due_at ?? ''));

    const check = await runOk(sandbox, 'upstream.check_order', { host_id: hostId });
    expect(check['invoices']).toEqual([
      expect.objectContaining({ invoice_id: invoiceId, kind: 'renewal', status: 'paid', paid: true, total: '124.00' }),
      expect.objectContaining({ kind: 'purchase', status: 'paid' }),
    ]);
    expect(check['hosts']).toEqual([{ host_id: hostId, status: 'active' }]);
    expect(sandbox.control.ledger().renewals[String(hostId)]).toBe(1);
  });

  it('a renewal answered with a timeout after committing is ambiguous; check_order by host finds the invoice and a repeat renews nothing more', async () => {
    const other = (await buyCloudHost(sandbox, newDownstream())).host_id;
    const dueBefore = (await detail(other)).next_due_at;
    sandbox.control.failNext(1, 'timeout', { path: '/host/renew', afterCommit: true });
    const renew = await runFinance(sandbox, 'upstream.host_renew', { payload: { host_id: other, billing_period: 'monthly' }, config: { timeout_ms: 400 } });
    expect(renew).toMatchObject({ success: false, data: { error_kind: 'ambiguous', error_code: 'timeout' } });

    const check = await runOk(sandbox, 'upstream.check_order', { host_id: other });
    const pending = field<Array<{ invoice_id: number; kind: string; status: string }>>(check, 'invoices').find((i) => i.kind === 'renewal');
    expect(pending).toMatchObject({ status: 'unpaid' });
    const again = await runOk(sandbox, 'upstream.host_renew', { host_id: other, billing_period: 'monthly' });
    expect(again['invoice_id']).toBe(pending?.invoice_id);

    await runOk(sandbox, 'upstream.invoice_pay', { invoice_id: field<number>(again, 'invoice_id') });
    await runOk(sandbox, 'upstream.invoice_pay', { invoice_id: field<number>(again, 'invoice_id') });
    expect((await detail(other)).next_due_at).toBe(oneMonthLater(dueBefore ?? ''));
    expect(sandbox.control.ledger().renewals[String(other)]).toBe(1);
  });

  it('refuses to renew with a period the plugin does not renew', async () => {
    const result = await runFinance(sandbox, 'upstream.host_renew', { payload: { host_id: hostId, billing_period: 'onetime' } });
    expect(result).toMatchObject({ success: false, data: { error_kind: 'permanent', error_code: 'invalid_input' } });
    const unsold = await runFinance(sandbox, 'upstream.host_renew', { payload: { host_id: hostId, billing_period: 'biennially' } });
    expect(unsold).toMatchObject({ success: false, data: { error_kind: 'permanent', error_code: 'validation_failed' } });
  });

  it('lists traffic packages and buys one once; paying adds the traffic', async () => {
    const list = await runOk(sandbox, 'upstream.traffic_packages', { host_id: hostId });
    expect(list).toEqual({
      host_id: hostId,
      packages: [
        { package_id: 11, name: '流量包 100GB', size_gb: 100, price: '10.00' },
        { package_id: 12, name: '流量包 500GB', size_gb: 500, price: '45.00' },
        { package_id: 13, name: '流量包 1TB', size_gb: 1024, price: '80.00' },
      ],
    });
    const creditBefore = sandbox.control.credit();
    const buy = await runOk(sandbox, 'upstream.traffic_package_buy', { host_id: hostId, package_id: 12 });
    const invoiceId = field<number>(buy, 'invoice_id');
    expect(buy).toEqual({ host_id: hostId, package_id: 12, invoice_id: invoiceId, amount: '45.00' });
    await runOk(sandbox, 'upstream.invoice_pay', { invoice_id: invoiceId });

    expect((await detail(hostId)).bandwidth).toEqual({ limit_gb: 1500, used_gb: '0.00', extra_gb: 500 });
    expect(money(creditBefore).minus(sandbox.control.credit()).toFixed(2)).toBe('45.00');
    expect(sandbox.control.ledger().trafficPurchases).toEqual({ [`${hostId}:12`]: 1 });
  });

  it('a traffic package buy that timed out after committing is ambiguous and the repeat answers the same invoice', async () => {
    sandbox.control.failNext(1, 'timeout', { path: '/host/flowpacket/buy', afterCommit: true });
    const buy = await runFinance(sandbox, 'upstream.traffic_package_buy', { payload: { host_id: hostId, package_id: 11 }, config: { timeout_ms: 400 } });
    expect(buy.data).toMatchObject({ error_kind: 'ambiguous', error_code: 'timeout' });
    const check = await runOk(sandbox, 'upstream.check_order', { host_id: hostId });
    const open = field<Array<{ invoice_id: number; kind: string; status: string }>>(check, 'invoices').find((i) => i.kind === 'traffic_package' && i.status === 'unpaid');
    const again = await runOk(sandbox, 'upstream.traffic_package_buy', { host_id: hostId, package_id: 11 });
    expect(again['invoice_id']).toBe(open?.invoice_id);
    await runOk(sandbox, 'upstream.invoice_pay', { invoice_id: field<number>(again, 'invoice_id') });
    expect(sandbox.control.ledger().trafficPurchases[`${hostId}:11`]).toBe(1);
  });

  it('runs power actions and reads the power state', async () => {
    const off = await runOk(sandbox, 'upstream.host_action', { host_id: hostId, action: 'power_off' });
    expect(off).toEqual({ host_id: hostId, action: 'power_off', done: true, power_status: null, console_url: null });
    expect(await runOk(sandbox, 'upstream.host_action', { host_id: hostId, action: 'status' })).toMatchObject({ power_status: 'off' });
    await runOk(sandbox, 'upstream.host_action', { host_id: hostId, action: 'power_on' });
    await runOk(sandbox, 'upstream.host_action', { host_id: hostId, action: 'hard_reboot' });
    expect(await runOk(sandbox, 'upstream.host_action', { host_id: hostId, action: 'status' })).toMatchObject({ power_status: 'on' });
    const actions = sandbox.control.ledger().hostActions;
    expect([actions[`${hostId}:off`], actions[`${hostId}:on`], actions[`${hostId}:hard_reboot`], actions[`${hostId}:status`]]).toEqual([1, 1, 1, 2]);
  });

  it('VNC answers the console URL only: the VNC password is dropped', async () => {
    const result = await runFinance(sandbox, 'upstream.host_action', { payload: { host_id: hostId, action: 'vnc' } });
    expect(result.success).toBe(true);
    expect(result.data).toEqual({ host_id: hostId, action: 'vnc', done: true, power_status: null, console_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/vnc\/console\?host=\d+&token=[0-9a-f]{24}$/) });
    expect(JSON.stringify(result)).not.toMatch(/pass/i);
    expect(sandbox.control.ledger().hostActions[`${hostId}:vnc`]).toBe(1);
  });

  it('answers the console ticket (websocket URL and VNC password) under one redacted key, for the relay only', async () => {
    const ticket = await runOk(sandbox, 'upstream.console_ticket', { host_id: hostId });
    expect(ticket).toEqual({
      host_id: hostId,
      console_secret: { websocket_url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/vnc\/console\?host=\d+&token=[0-9a-f]{24}$/), password: expect.stringMatching(/^[A-Za-z0-9]{8}$/) },
    });
    expect(sandbox.control.consolePasswords()).toContain(field<{ password: string }>(ticket, 'console_secret').password);
    expect(redactSummary(ticket, [])).not.toContain(field<{ password: string }>(ticket, 'console_secret').password);
    expect(redactSummary(ticket, [])).not.toContain('/vnc/console');
  });

  it('reinstalls with an OS sub-option id, resets the password and enters rescue without returning any password', async () => {
    const reinstall = await runOk(sandbox, 'upstream.host_action', { host_id: hostId, action: 'reinstall', params: { os_id: 1010705 } });
    expect(reinstall).toMatchObject({ action: 'reinstall', done: true });
    expect(await detail(hostId)).toMatchObject({ os: 'Windows Server 2019 数据中心版 64位', username: 'administrator', port: 3389 });

    const reset = await runFinance(sandbox, 'upstream.host_action', { payload: { host_id: hostId, action: 'reset_password', params: { password: 'NewPass2024x' } } });
    expect(reset.success).toBe(true);
    expect(JSON.stringify(reset)).not.toContain('NewPass2024x');
    const credentials = await runOk(sandbox, 'upstream.host_credentials', { host_id: hostId });
    expect(credentials['credentials']).toMatchObject({ password: 'NewPass2024x', username: 'administrator' });

    const rescue = await runFinance(sandbox, 'upstream.host_action', { payload: { host_id: hostId, action: 'rescue', params: { system: 'linux' } } });
    expect(rescue.data).toEqual({ host_id: hostId, action: 'rescue', done: true, power_status: null, console_url: null });
    expect(await runOk(sandbox, 'upstream.host_action', { host_id: hostId, action: 'status' })).toMatchObject({ power_status: 'rescue' });
    const actions = sandbox.control.ledger().hostActions;
    expect([actions[`${hostId}:reinstall`], actions[`${hostId}:crack_pass`], actions[`${hostId}:rescue`]]).toEqual([1, 1, 1]);
  });

  it('refuses bad host actions: our checks before sending, the upstream refusals classified', async () => {
    sandbox.control.resetCounters();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ host_id: hostId, action: 'explode' }, '参数错误：action 必须为 power_on、power_off、reboot、hard_power_off、hard_reboot、status、vnc、reinstall、reset_password、rescue、suspend、unsuspend、terminate 之一'],
      [{ host_id: hostId, action: 'reinstall', params: {} }, '参数错误：params.os_id 必须为正整数（操作系统子选项 ID）'],
      [{ host_id: hostId, action: 'reset_password', params: { password: 'short' } }, '参数错误：params.password 需 8 到 32 位且包含字母和数字'],
      [{ host_id: hostId, action: 'rescue', params: { system: 'dos' } }, '参数错误：system 必须为 linux、windows 之一'],
    ];
    for (const [payload, message] of cases) {
      expect(await runFinance(sandbox, 'upstream.host_action', { payload })).toMatchObject({ success: false, message, data: { error_code: 'invalid_input' } });
    }
    expect(sandbox.control.counters().paths).toEqual({});

    const badOs = await runFinance(sandbox, 'upstream.host_action', { payload: { host_id: hostId, action: 'reinstall', params: { os_id: 42 } } });
    expect(badOs.data).toMatchObject({ error_kind: 'permanent', error_code: 'not_found', upstream_status: 406 });
    const unpaid = newDownstream();
    await runOk(sandbox, 'upstream.purchase_cart', { downstream: unpaid, ...CLOUD_ORDER });
    const pendingHost = field<number>(await runOk(sandbox, 'upstream.purchase_checkout', { downstream: unpaid }), 'host_id');
    const pending = await runFinance(sandbox, 'upstream.host_action', { payload: { host_id: pendingHost, action: 'power_on' } });
    expect(pending.data).toMatchObject({ error_kind: 'permanent', error_code: 'business_error', upstream_status: 400 });
    const unknown = await runFinance(sandbox, 'upstream.host_action', { payload: { host_id: 424242, action: 'reboot' } });
    expect(unknown.data).toMatchObject({ error_kind: 'permanent', error_code: 'not_found' });
    sandbox.control.failNext(1, 'html500', { path: '/provision/default' });
    const broken = await runFinance(sandbox, 'upstream.host_action', { payload: { host_id: hostId, action: 'reboot' } });
    expect(broken.data).toMatchObject({ error_kind: 'transient', error_code: 'upstream_unavailable' });
  });

  it('suspends, unsuspends and terminates a host; each only from a status that takes it', async () => {
    const own = (await buyCloudHost(sandbox, newDownstream())).host_id;
    const suspend = await runOk(sandbox, 'upstream.host_action', { host_id: own, action: 'suspend' });
    expect(suspend).toEqual({ host_id: own, action: 'suspend', done: true, power_status: null, console_url: null });
    expect((await detail(own)).status).toBe('suspended');
    const again = await runFinance(sandbox, 'upstream.host_action', { payload: { host_id: own, action: 'suspend' } });
    expect(again.data).toMatchObject({ error_kind: 'permanent', error_code: 'business_error', upstream_status: 400 });
    expect((await runFinance(sandbox, 'upstream.host_action', { payload: { host_id: own, action: 'reboot' } })).success).toBe(false);
    await runOk(sandbox, 'upstream.host_action', { host_id: own, action: 'unsuspend' });
    expect((await detail(own)).status).toBe('active');
    const notSuspended = await runFinance(sandbox, 'upstream.host_action', { payload: { host_id: own, action: 'unsuspend' } });
    expect(notSuspended.data).toMatchObject({ error_code: 'business_error' });
    await runOk(sandbox, 'upstream.host_action', { host_id: own, action: 'terminate' });
    expect((await detail(own)).status).toBe('terminated');
    const actions = sandbox.control.ledger().hostActions;
    expect([actions[`${own}:suspend`], actions[`${own}:unsuspend`], actions[`${own}:terminate`]]).toEqual([1, 1, 1]);
  });

  it('a refused or merely queued state action leaves the host as it was', async () => {
    const own = (await buyCloudHost(sandbox, newDownstream())).host_id;
    sandbox.control.failNext(1, 'refused', { path: '/provision/default' });
    const refused = await runFinance(sandbox, 'upstream.host_action', { payload: { host_id: own, action: 'suspend' } });
    expect(refused).toMatchObject({ success: false, data: { error_kind: 'permanent', error_code: 'business_error', upstream_status: 400 } });
    expect((await detail(own)).status).toBe('active');
    sandbox.control.deferStateActions(1);
    expect(await runOk(sandbox, 'upstream.host_action', { host_id: own, action: 'suspend' })).toMatchObject({ done: true });
    expect((await detail(own)).status).toBe('active');
    await runOk(sandbox, 'upstream.host_action', { host_id: own, action: 'suspend' });
    expect((await detail(own)).status).toBe('suspended');
  });

  it('custom module actions and pages use the JWT scheme, pages with id, key and jwt query parameters', async () => {
    const before = sandbox.control.ledger().moduleCalls.length;
    const add = await runOk(sandbox, 'upstream.module_action', { host_id: hostId, function: 'addNatRule', fields: { protocol: 'tcp', int_port: 22 } });
    expect(add).toEqual({ host_id: hostId, function: 'addNatRule', done: true, result: { rule_id: expect.any(Number), ext_port: expect.any(Number) } });
    const snapshot = await runOk(sandbox, 'upstream.module_action', { host_id: hostId, function: 'createSnapshot', fields: { name: 'before-upgrade' } });
    expect(snapshot['result']).toEqual({ snapshot_id: expect.any(Number) });

    const nat = await runOk(sandbox, 'upstream.module_page', { host_id: hostId, page: 'nat_rules' });
    expect(nat).toEqual({
      host_id: hostId,
      page: 'nat_rules',
      items: [{ id: expect.any(Number), protocol: 'tcp', int_port: 22, ext_port: expect.any(Number) }],
      total: 1,
      truncated: false,
      meta: { max_rules: 10, port_min: 20000, port_max: 29999 },
    });
    const snapshots = await runOk(sandbox, 'upstream.module_page', { host_id: hostId, page: 'snapshots' });
    expect(snapshots['items']).toEqual([expect.objectContaining({ name: 'before-upgrade', status: 'created' })]);

    const calls = sandbox.control.ledger().moduleCalls.slice(before);
    expect(calls).toEqual([
      { method: 'POST', path: `/provision/custom/${hostId}`, scheme: 'JWT', hostId, query: null, func: 'addNatRule' },
      { method: 'POST', path: `/provision/custom/${hostId}`, scheme: 'JWT', hostId, query: null, func: 'createSnapshot' },
      { method: 'GET', path: '/provision/custom/content', scheme: 'JWT', hostId, query: { id: String(hostId), key: 'nat_rules', jwtMatchesHeader: true }, func: null },
      { method: 'GET', path: '/provision/custom/content', scheme: 'JWT', hostId, query: { id: String(hostId), key: 'snapshots', jwtMatchesHeader: true }, func: null },
    ]);
    expect(sandbox.control.ledger().moduleActions).toMatchObject({ [`${hostId}:addNatRule`]: 1, [`${hostId}:createSnapshot`]: 1 });
  });

  it('reads monitoring points through the module page and classifies NAT port and limit refusals', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cpu = await runOk(sandbox, 'upstream.host_monitoring', { host_id: hostId, metric: 'bandwidth_in', from: now - 3600, to: now, limit: 6 });
    expect(cpu).toMatchObject({ host_id: hostId, metric: 'bandwidth_in', unit: 'Kbps' });
    const points = cpu['points'] as Array<{ time: number; value: number }>;
    expect(points.length).toBeGreaterThan(0);
    expect(points.length).toBeLessThanOrEqual(6);
    expect(points.every((p, i) => p.time >= now - 3600 && p.time <= now && (i === 0 || p.time > (points[i - 1]?.time ?? 0)))).toBe(true);
    const calls = sandbox.control.ledger().moduleCalls;
    expect(calls.at(-1)).toMatchObject({ method: 'GET', path: '/provision/custom/content', scheme: 'JWT', query: { id: String(hostId), key: 'monitoring', jwtMatchesHeader: true } });
    const bad = await runFinance(sandbox, 'upstream.host_monitoring', { payload: { host_id: hostId, metric: 'gpu', from: 0, to: 1, limit: 1 } });
    expect(bad.data).toMatchObject({ error_code: 'invalid_input' });

    const added = await runOk(sandbox, 'upstream.module_action', { host_id: hostId, function: 'addNatRule', fields: { protocol: 'udp', int_port: 53, ext_port: 28001 } });
    const taken = await runFinance(sandbox, 'upstream.module_action', { payload: { host_id: hostId, function: 'addNatRule', fields: { protocol: 'udp', int_port: 54, ext_port: 28001 } } });
    expect(taken).toMatchObject({ success: false, message: '上游外网端口已被占用，请换一个端口', data: { error_kind: 'permanent', error_code: 'port_taken', upstream_status: 400 } });
    const ruleId = (added['result'] as { rule_id: number }).rule_id;
    await runOk(sandbox, 'upstream.module_action', { host_id: hostId, function: 'delNatRule', fields: { rule_id: ruleId } });
  });

  it('module actions re-login once on a 405 and refuse bad input before sending', async () => {
    sandbox.control.expireTokens();
    const list = await runFinance(sandbox, 'upstream.module_page', { payload: { host_id: hostId, page: 'security_groups' } });
    expect(list.success).toBe(true);
    expect(list.diagnostics).toMatchObject({ session: { reloginsAfterRejection: 1 } });
    expect(field<unknown[]>(list.data, 'items').length).toBeGreaterThan(0);

    const badFunction = await runFinance(sandbox, 'upstream.module_action', { payload: { host_id: hostId, function: '../etc', fields: {} } });
    expect(badFunction).toMatchObject({ success: false, message: '参数错误：function 格式不正确', data: { error_code: 'invalid_input' } });
    const nested = await runFinance(sandbox, 'upstream.module_action', { payload: { host_id: hostId, function: 'addNatRule', fields: { rule: { port: 1 } } } });
    expect(nested).toMatchObject({ success: false, message: '参数错误：fields.rule 必须为字符串、数字或布尔值' });
    const unsupported = await runFinance(sandbox, 'upstream.module_action', { payload: { host_id: hostId, function: 'formatDisk', fields: {} } });
    expect(unsupported.data).toMatchObject({ error_kind: 'permanent', error_code: 'validation_failed', upstream_status: 406 });
  });
});

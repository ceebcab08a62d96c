import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne } from '../../../../db/sql.js';
import { reconcileSuppliers } from '../../../../domain/economics/reconciliation/reconcile.js';
import { clearAllTokens } from '../../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { expectError } from '../../../helpers/http.js';
import { createTestSupplier, createUser, daysFromNow, seedRenewInvoice, seedService } from '../../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { startUpstreamForPlatform, type UpstreamSandbox } from '../../../helpers/upstream-supplier.js';
import { eventually } from '../../../helpers/wait.js';

/**
 * Reconciliation with the supplier against the real upstream sandbox: each kind of finding, a
 * second run that only moves `last_seen_at`, a fixed item resolved by the next run, the admin
 * state changes, a supplier without a bill list, and refused parameters.
 */
const BASE = '/api/v2/admin/economics/reconciliation';
const DAY_S = 86_400;

let platform: TestPlatform;
let sandbox: UpstreamSandbox;
let token: string;
let supplierId: number;
const hosts: Record<string, number> = {};
const services: Record<string, number> = {};
const bills: Record<string, number> = {};

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

type Finding = Record<string, unknown> & { id: number; kind: string; state: string; subject_key: string; times_seen: number };

async function findings(query: Record<string, string | number> = {}): Promise<Finding[]> {
  const res = await platform.api.get(`${BASE}/findings`, { token, query: { page_size: 100, ...query } });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data.list as Finding[];
}

function byKind(list: Finding[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const f of list) (out[f.kind] ??= []).push(f.subject_key);
  for (const key of Object.keys(out)) out[key]?.sort();
  return out;
}

beforeAll(async () => {
  clearAllTokens();
  platform = await startTestPlatform({ worker: true });
  token = await platform.rootToken();
  ({ sandbox } = await startUpstreamForPlatform(platform));
  supplierId = (await createTestSupplier(platform, sandbox.baseUrl, 'recon-hk')).id;
  const userId = (await createUser(platform)).id;
  const ourDue = daysFromNow(20);
  // The account's own three hosts are gone: every host below is made for one case.
  sandbox.control.seedHosts(0);
  const add = (name: string, patch: Parameters<UpstreamSandbox['control']['addHost']>[0]) => (hosts[name] = sandbox.control.addHost(patch).id);
  add('ok', { nextDueDate: seconds(ourDue) + 3600 });
  add('removed', { nextDueDate: seconds(ourDue) });
  add('suspended', { status: 'Suspended', nextDueDate: seconds(ourDue) });
  add('expired', { nextDueDate: seconds(new Date()) - 2 * DAY_S });
  add('late', { nextDueDate: seconds(ourDue) + 10 * DAY_S });
  add('terminatedHere', {});
  add('notOurs', {});
  add('goneUpstream', { status: 'Terminated' });
  for (const name of ['ok', 'removed', 'suspended', 'expired', 'late']) {
    services[name] = await seedService(platform, { userId, nextDueAt: ourDue, upstream: { supplierId, hostId: hosts[name] as number } });
  }
  services['terminatedHere'] = await seedService(platform, { userId, status: 'terminated', nextDueAt: ourDue, upstream: { supplierId, hostId: hosts['terminatedHere'] as number } });
  sandbox.control.removeHost(hosts['removed'] as number);

  // Bills: the purchase of `ok` (recorded on its binding), a renewal of `late` (recorded on its
  // service order), one paid on the upstream's own panel (ours nowhere), one unpaid.
  bills['purchase'] = sandbox.control.addBill({ type: 'product', total: '59.00', hostIds: [hosts['ok'] as number] }).id;
  bills['renewal'] = sandbox.control.addBill({ type: 'renew', total: '59.00', hostIds: [hosts['late'] as number] }).id;
  bills['stray'] = sandbox.control.addBill({ type: 'upgrade', total: '23.45', hostIds: [hosts['ok'] as number] }).id;
  bills['unpaid'] = sandbox.control.addBill({ type: 'renew', status: 'Unpaid', total: '59.00', hostIds: [hosts['ok'] as number] }).id;
  await sqlOne(platform.deps, `UPDATE service_upstream_bindings SET upstream_invoice_id = $2 WHERE service_id = $1 RETURNING service_id`, [services['ok'], bills['purchase']]);
  const renewal = await seedRenewInvoice(platform, { userId, serviceId: services['late'] as number, amount: '30.00', status: 'paid' });
  await sqlOne(
    platform.deps,
    `INSERT INTO service_orders (invoice_id, service_id, user_id, kind, billing_period, months, amount, supplier_id, upstream_host_id, upstream_invoice_id, workflow_id)
     VALUES ($1, $2, $3, 'renew', 'monthly', 1, '30.00', $4, $5, $6, $7) RETURNING id`,
    [renewal.id, services['late'], userId, supplierId, hosts['late'], bills['renewal'], `renew:${renewal.invoice_no}`],
  );
});
afterAll(async () => {
  await sandbox?.stop();
  await platform?.close();
  clearAllTokens();
});

describe('the daily reconciliation (upstream.reconcile)', () => {
  it('runs from the admin trigger and reports each kind of finding once, without passwords', async () => {
    const before = Number((await platform.deps.db.models.TaskRun.max('id')) ?? 0);
    const res = await platform.api.post('/api/v2/admin/schedules/upstream.reconcile/trigger', { token });
    expect(res.body.code, res.body.message).toBe(0);
    const run = await eventually(async () => {
      const row = await platform.deps.db.models.TaskRun.findOne({ where: { task_key: 'upstream.reconcile' }, order: [['id', 'DESC']] });
      return row && row.id > before && row.status !== 'running' ? row : null;
    });
    expect(run).toMatchObject({ status: 'succeeded', trigger: 'manual', error: null });
    expect(run.summary).toEqual([
      expect.objectContaining({ supplier_id: supplierId, status: 'succeeded', hosts_compared: true, bills_compared: true, upstream_hosts: 7, upstream_bills: 4, local_services: 5, findings_seen: 7, findings_opened: 7, findings_resolved: 0 }),
    ]);

    const list = await findings();
    expect(byKind(list)).toEqual({
      unknown_upstream_host: [`host:${hosts['notOurs']}`, `host:${hosts['terminatedHere']}`].sort(),
      missing_upstream: [`host:${hosts['removed']}`],
      upstream_suspended: [`host:${hosts['suspended']}`],
      upstream_expired: [`host:${hosts['expired']}`],
      due_date_mismatch: [`host:${hosts['late']}`],
      unmatched_upstream_charge: [`bill:${bills['stray']}`],
    });
    expect(list).toHaveLength(7);
    expect(list.every((f) => f.state === 'open' && f.times_seen === 1)).toBe(true);

    const find = (kind: string) => list.find((f) => f.kind === kind) as Finding;
    expect(find('missing_upstream')).toMatchObject({ service_id: services['removed'], upstream_host_id: hosts['removed'], ours: { status: 'active' }, theirs: { listed: false } });
    expect(find('upstream_suspended')).toMatchObject({ service_id: services['suspended'], theirs: { status: 'suspended' }, kind_label: '本地服务有效但上游主机已暂停' });
    expect(find('upstream_expired')).toMatchObject({ service_id: services['expired'], theirs: { status: 'active' } });
    expect(find('due_date_mismatch')).toMatchObject({ service_id: services['late'], theirs: { days_after_ours: 10 } });
    expect(find('unmatched_upstream_charge')).toMatchObject({
      upstream_bill_id: bills['stray'],
      amount: '23.45',
      service_id: services['ok'],
      ours: { recorded: false, service_ids: String(services['ok']) },
      theirs: { type: 'upgrade', status: 'paid', amount: '23.45', host_ids: String(hosts['ok']) },
      state_label: '待处理',
    });
    const unknown = list.filter((f) => f.kind === 'unknown_upstream_host');
    expect(unknown.find((f) => f.upstream_host_id === hosts['notOurs'])).toMatchObject({ service_id: null, amount: expect.stringMatching(/^\d+\.\d{2}$/), ours: {} });
    expect(unknown.find((f) => f.upstream_host_id === hosts['terminatedHere'])).toMatchObject({ service_id: services['terminatedHere'], ours: { service_id: services['terminatedHere'], status: 'terminated' } });
    // no finding for the service that matches, the host gone upstream that we never had, or the recorded and unpaid bills
    expect(list.some((f) => f.service_id === services['ok'] && f.kind !== 'unmatched_upstream_charge')).toBe(false);
    expect(list.some((f) => f.upstream_host_id === hosts['goneUpstream'])).toBe(false);
    expect(list.some((f) => [bills['purchase'], bills['renewal'], bills['unpaid']].includes(f.upstream_bill_id as number))).toBe(false);
    expect(JSON.stringify(list)).not.toMatch(/Pw-\d+-sandbox|password/i);
  });

  it('does not duplicate on a second run: the same rows, seen twice', async () => {
    const first = await findings();
    const [line] = await reconcileSuppliers(platform.deps);
    expect(line).toMatchObject({ status: 'succeeded', findings_seen: 7, findings_opened: 0, findings_resolved: 0 });
    const second = await findings();
    expect(second.map((f) => f.id).sort()).toEqual(first.map((f) => f.id).sort());
    expect(second.every((f) => f.times_seen === 2 && f.state === 'open')).toBe(true);
    const rows = await sqlOne<{ count: string }>(platform.deps, 'SELECT count(*) AS count FROM reconciliation_findings', []);
    expect(Number(rows?.count)).toBe(7);
    // One admin alert per finding opened, none for seeing it again.
    const alerts = await sqlOne<{ count: string }>(platform.deps, "SELECT count(*) AS count FROM admin_alerts WHERE kind = 'reconciliation'", []);
    expect(Number(alerts?.count)).toBe(7);
  });

  it('resolves a fixed item on the next run, and opens it again when it comes back', async () => {
    sandbox.control.updateHost(hosts['suspended'] as number, { status: 'Active' });
    const [line] = await reconcileSuppliers(platform.deps);
    expect(line).toMatchObject({ findings_seen: 6, findings_opened: 0, findings_resolved: 1 });
    const [fixed] = await findings({ kind: 'upstream_suspended' });
    expect(fixed).toMatchObject({ state: 'resolved', resolved_by_type: 'system', resolved_by_id: null, resolved_at: expect.any(String) });
    expect(await findings({ state: 'open' })).toHaveLength(6);

    sandbox.control.updateHost(hosts['suspended'] as number, { status: 'Suspended' });
    const [again] = await reconcileSuppliers(platform.deps);
    expect(again).toMatchObject({ findings_opened: 1, findings_resolved: 0 });
    const [reopened] = await findings({ kind: 'upstream_suspended' });
    expect(reopened).toMatchObject({ id: fixed?.id, state: 'open', resolved_at: null, resolved_by_type: null });
  });

  it('leaves bill findings alone when the upstream has no bill list, and says bills were not compared', async () => {
    sandbox.control.failNext(1, 'not_found', { path: '/billing/list' });
    const [line] = await reconcileSuppliers(platform.deps);
    expect(line).toMatchObject({ status: 'succeeded', hosts_compared: true, bills_compared: false, upstream_bills: 0, findings_resolved: 0 });
    const runs = await platform.api.get(`${BASE}/runs`, { token, query: { supplier_id: supplierId, page_size: 1 } });
    // runs so far: the triggered one, the repeat, the fix, the relapse and this one
    expect(runs.body.data).toMatchObject({ page: 1, page_size: 1, total: 5 });
    expect(runs.body.data.list[0]).toMatchObject({ id: line?.run_id, status: 'succeeded', status_label: '已完成', bills_compared: false, note: '上游不提供账单列表，本次未比对账单', error: null });
    const [charge] = await findings({ kind: 'unmatched_upstream_charge' });
    expect(charge).toMatchObject({ state: 'open' });
  });

  it('records a failed run when the host list cannot be read, and resolves nothing', async () => {
    sandbox.control.failNext(5, 'html500', { path: '/host/list' });
    const openBefore = (await findings({ state: 'open' })).length;
    const [line] = await reconcileSuppliers(platform.deps);
    sandbox.control.clearFaults();
    expect(line).toMatchObject({ status: 'failed', findings_resolved: 0, error: expect.stringMatching(/^读取上游主机列表失败/) });
    expect(await findings({ state: 'open' })).toHaveLength(openBefore);
    const failed = await platform.api.get(`${BASE}/runs`, { token, query: { status: 'failed' } });
    expect(failed.body.data.total).toBe(1);
    expect(JSON.stringify(failed.body.data)).not.toMatch(/<html|Whoops/i);
  });
});

describe('admin handling of findings', () => {
  it('acknowledges an open finding, then resolves it; other transitions are refused with 40990', async () => {
    const [mismatch] = await findings({ kind: 'due_date_mismatch' });
    const id = mismatch?.id as number;
    const ack = await platform.api.post(`${BASE}/findings/${id}/acknowledge`, { token, body: { note: '已联系供应商核对' } });
    expect(ack.body.data).toMatchObject({ id, state: 'acknowledged', state_label: '已确认', acknowledged_at: expect.any(String), acknowledged_by: expect.any(Number), note: '已联系供应商核对' });
    expectError(await platform.api.post(`${BASE}/findings/${id}/acknowledge`, { token, body: {} }), 40990, 409);

    // An acknowledged finding still seen stays acknowledged.
    await reconcileSuppliers(platform.deps);
    expect((await findings({ kind: 'due_date_mismatch' }))[0]).toMatchObject({ state: 'acknowledged' });

    const resolved = await platform.api.post(`${BASE}/findings/${id}/resolve`, { token, body: {} });
    expect(resolved.body.data).toMatchObject({ state: 'resolved', resolved_by_type: 'admin', resolved_by_id: expect.any(Number), note: '已联系供应商核对' });
    const again = await platform.api.post(`${BASE}/findings/${id}/resolve`, { token, body: {} });
    expectError(again, 40990, 409);
    expect(again.body.message).toBe('该对账差异已解决');
    expectError(await platform.api.post(`${BASE}/findings/${id}/acknowledge`, { token, body: {} }), 40990, 409);

    const audit = await platform.api.get('/api/v2/admin/audit-logs', { token, query: { page_size: 10 } });
    const routes = (audit.body.data.list as Array<Record<string, unknown>>).map((r) => `${String(r['action'])} ${String(r['status_code'] ?? r['http_status'] ?? '')}`);
    expect(routes.some((r) => r.startsWith('acknowledge'))).toBe(true);
    expect(routes.some((r) => r.startsWith('resolve'))).toBe(true);
  });

  it('the next run opens an admin-resolved finding again when the difference is still there', async () => {
    const [line] = await reconcileSuppliers(platform.deps);
    expect(line?.findings_opened).toBeGreaterThanOrEqual(1);
    expect((await findings({ kind: 'due_date_mismatch' }))[0]).toMatchObject({ state: 'open', resolved_by_type: null, acknowledged_at: null });
  });

  it('sums findings by kind and state, with the open upstream amounts', async () => {
    const res = await platform.api.get(`${BASE}/findings/summary`, { token, query: { supplier_id: supplierId } });
    expect(res.body.data.total).toBe(7);
    expect(res.body.data.by_state).toEqual({ open: 7, acknowledged: 0, resolved: 0 });
    const charge = (res.body.data.by_kind as Array<Record<string, unknown>>).find((k) => k['kind'] === 'unmatched_upstream_charge');
    expect(charge).toEqual({ kind: 'unmatched_upstream_charge', kind_label: '上游已付账单无对应本地订单', total: 1, open: 1, acknowledged: 0, resolved: 0, open_amount: '23.45' });
    expect(res.body.data.by_kind).toHaveLength(8);
    const filtered = await platform.api.get(`${BASE}/findings/summary`, { token, query: { kind: 'missing_upstream', state: 'resolved' } });
    expect(filtered.body.data.total).toBe(0);
  });

  it('refuses bad parameters with Chinese messages and changes nothing', async () => {
    const bad: Array<[string, Record<string, string | number>]> = [
      [`${BASE}/findings`, { kind: 'lost_host' }],
      [`${BASE}/findings`, { state: 'closed' }],
      [`${BASE}/findings`, { supplier_id: 'abc' }],
      [`${BASE}/findings`, { page_size: 1000 }],
      [`${BASE}/findings`, { limit: 10 }],
      [`${BASE}/findings`, JSON.parse('{"__proto__": "1"}') as Record<string, string>],
      [`${BASE}/findings/summary`, { page: 1 }],
      [`${BASE}/runs`, { status: 'done' }],
    ];
    for (const [path, query] of bad) {
      const res = await platform.api.get(path, { token, query });
      expectError(res, 42200, 422);
      expect(res.body.message, JSON.stringify(query)).toMatch(/\p{Script=Han}/u);
    }
    const [open] = await findings({ state: 'open' });
    const long = await platform.api.post(`${BASE}/findings/${open?.id}/acknowledge`, { token, body: { note: 'x'.repeat(201) } });
    expectError(long, 42200, 422);
    expect(long.body.message).toMatch(/\p{Script=Han}/u);
    expectError(await platform.api.post(`${BASE}/findings/${open?.id}/resolve`, { token, body: { note: 5 } }), 42200, 422);
    expectError(await platform.api.post(`${BASE}/findings/0/resolve`, { token, body: {} }), 42200, 422);
    const missing = await platform.api.post(`${BASE}/findings/999999/resolve`, { token, body: {} });
    expectError(missing, 40400, 404);
    expect(missing.body.message).toBe('对账差异不存在');
    expect((await findings({ state: 'open' })).find((f) => f.id === open?.id)).toMatchObject({ state: 'open' });
  });
});

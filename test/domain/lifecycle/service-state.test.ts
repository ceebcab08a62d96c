import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { suspendOverdueServices, terminateOverdueServices, unsuspendRenewedServices } from '../../../domain/lifecycle/enforce-due-dates.js';
import { clearAllTokens } from '../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { createTestSupplier, createUser, daysFromNow, type Notifier, seedRenewInvoice, seedService, serviceEvents, startNotifier } from '../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { startUpstreamForPlatform, type UpstreamSandbox } from '../../helpers/upstream-supplier.js';

let platform: TestPlatform;
let upstream: UpstreamSandbox;
let notifier: Notifier;
let supplierId: number;
let userId: number;
/** Active sandbox hosts not used yet (seeded hosts 0-2, 5-7 … of every five are active). */
let activeHosts: number[];
let suspendedHosts: number[];
const run = { taskRunId: 1 };

beforeAll(async () => {
  clearAllTokens();
  platform = await startTestPlatform();
  ({ sandbox: upstream } = await startUpstreamForPlatform(platform));
  notifier = await startNotifier(platform);
  upstream.control.seedHosts(40);
  const first = 5004; // the three hosts of the account's start were replaced by 40 new ones
  const ids = Array.from({ length: 40 }, (_, i) => first + i);
  activeHosts = ids.filter((id) => upstream.control.host(id)?.status === 'Active');
  suspendedHosts = ids.filter((id) => upstream.control.host(id)?.status === 'Suspended');
  supplierId = (await createTestSupplier(platform, upstream.baseUrl, 'hk-state')).id;
  userId = (await createUser(platform)).id;
});
afterAll(async () => {
  await upstream?.stop();
  await notifier?.stop();
  await platform?.close();
  clearAllTokens();
});
beforeEach(() => upstream.control.clearFaults());

function takeHost(pool: number[]): number {
  const id = pool.shift();
  if (id === undefined) throw new Error('no sandbox host left');
  return id;
}

async function service(id: number) {
  const row = await platform.deps.db.models.Service.findByPk(id);
  if (!row) throw new Error('service gone');
  return row;
}

/** Only the services of one test are candidates: the earlier tests' services are set aside (cancelled). */
async function onlyThese(ids: number[]) {
  await platform.deps.db.sequelize.query(
    `UPDATE services SET status = 'cancelled', suspend_reason = NULL WHERE NOT (id = ANY(ARRAY[:ids]::int[])) AND status IN ('active', 'suspended')`,
    { replacements: { ids: ids.length > 0 ? ids : [0] } },
  );
}

describe('suspending overdue services', () => {
  it('suspends through the upstream, changes the service only after the host detail confirmed, and a second run changes nothing', async () => {
    const hostId = takeHost(activeHosts);
    const id = await seedService(platform, { userId, nextDueAt: daysFromNow(-4), upstream: { supplierId, hostId } });
    await onlyThese([id]);
    const first = await suspendOverdueServices(platform.deps, run);
    expect(first).toMatchObject({ candidates: 1, changed: 1, failed: 0, suspend_after_days: 3 });
    expect(await service(id)).toMatchObject({ status: 'suspended', suspend_reason: 'overdue', upstream_status: 'suspended' });
    expect((await service(id)).suspended_at).not.toBeNull();
    expect(upstream.control.host(hostId)?.status).toBe('Suspended');
    expect(upstream.control.ledger().hostActions[`${hostId}:suspend`]).toBe(1);
    const events = await serviceEvents(platform, id);
    expect(events.map((e) => [e.kind, e.stage, e.status])).toEqual([['lifecycle', 'suspend', 'succeeded']]);
    expect(events[0]?.message).toBe('服务已到期未续费，已暂停（上游已确认）');
    expect(events[0]?.detail).toMatchObject({ upstream_host_id: hostId, upstream_status: 'suspended', reconciled: false, task_run_id: 1 });

    const second = await suspendOverdueServices(platform.deps, run);
    expect(second).toMatchObject({ candidates: 0, changed: 0 });
    expect(upstream.control.ledger().hostActions[`${hostId}:suspend`]).toBe(1);
    expect(await serviceEvents(platform, id)).toHaveLength(1);
  });

  it('sends the suspension notice by mail and SMS once', async () => {
    const hostId = takeHost(activeHosts);
    const id = await seedService(platform, { userId, nextDueAt: daysFromNow(-5), productName: '暂停通知测试机', upstream: { supplierId, hostId } });
    await onlyThese([id]);
    notifier.mail.control.clearMessages();
    notifier.sms.control.clearMessages();
    const result = await suspendOverdueServices(platform.deps, run);
    expect(result.notices).toMatchObject({ notices: 1, mail_sent: 1, sms_sent: 1 });
    const mails = notifier.mail.control.messages();
    expect(mails).toHaveLength(1);
    expect(mails[0]?.subject).toBe('【主机转售平台】服务已暂停');
    expect(mails[0]?.text).toContain('暂停通知测试机');
    expect(mails[0]?.text).toContain('续费成功后服务将自动恢复');
    expect(notifier.sms.control.messages().map((m) => [m.template_code, m.params['service_id']])).toEqual([['SMS_SERVICE_SUSPENDED', String(id)]]);
    await suspendOverdueServices(platform.deps, run);
    expect(notifier.mail.control.messages()).toHaveLength(1);
    expect(notifier.sms.control.messages()).toHaveLength(1);
  });

  it('leaves services inside the grace period and services whose paid renewal is still being applied', async () => {
    const early = await seedService(platform, { userId, nextDueAt: daysFromNow(-2), upstream: { supplierId, hostId: takeHost(activeHosts) } });
    const renewing = await seedService(platform, { userId, nextDueAt: daysFromNow(-10), upstream: { supplierId, hostId: takeHost(activeHosts) } });
    await seedRenewInvoice(platform, { userId, serviceId: renewing, amount: '30.00', status: 'paid' });
    await onlyThese([early, renewing]);
    expect(await suspendOverdueServices(platform.deps, run)).toMatchObject({ candidates: 0, changed: 0 });
    expect((await service(early)).status).toBe('active');
    expect((await service(renewing)).status).toBe('active');
  });

  it('an upstream refusal leaves the service as it was with a failed event; the next run suspends it', async () => {
    const hostId = takeHost(activeHosts);
    const id = await seedService(platform, { userId, nextDueAt: daysFromNow(-4), upstream: { supplierId, hostId } });
    await onlyThese([id]);
    upstream.control.failNext(1, 'refused', { path: '/provision/default' });
    expect(await suspendOverdueServices(platform.deps, run)).toMatchObject({ candidates: 1, refused: 1, changed: 0 });
    expect(await service(id)).toMatchObject({ status: 'active', suspend_reason: null, suspended_at: null });
    expect(upstream.control.host(hostId)?.status).toBe('Active');
    const [failed] = await serviceEvents(platform, id);
    expect(failed).toMatchObject({ kind: 'lifecycle', stage: 'suspend', status: 'failed' });
    expect(failed?.message).toMatch(/^暂停失败（上游操作）：.+；服务状态未变更，将在下次运行时重试$/);
    expect(failed?.detail).toMatchObject({ error_kind: 'permanent', error_code: 'business_error' });

    expect(await suspendOverdueServices(platform.deps, run)).toMatchObject({ changed: 1 });
    expect((await service(id)).status).toBe('suspended');
    expect((await serviceEvents(platform, id)).map((e) => e.status)).toEqual(['failed', 'succeeded']);
  });

  it('an unreachable upstream (HTML 500) changes nothing; neither does an action the host detail does not confirm yet', async () => {
    const hostId = takeHost(activeHosts);
    const id = await seedService(platform, { userId, nextDueAt: daysFromNow(-4), upstream: { supplierId, hostId } });
    await onlyThese([id]);
    upstream.control.failNext(1, 'html500', { path: '/provision/default' });
    expect(await suspendOverdueServices(platform.deps, run)).toMatchObject({ failed: 1, changed: 0 });
    expect((await service(id)).status).toBe('active');

    upstream.control.deferStateActions(1);
    expect(await suspendOverdueServices(platform.deps, run)).toMatchObject({ unconfirmed: 1, changed: 0 });
    expect((await service(id)).status).toBe('active');
    const events = await serviceEvents(platform, id);
    expect(events.at(-1)?.message).toBe('上游已受理暂停，但主机状态尚未变更（上游状态：active）；服务状态未变更，将在下次运行时确认');

    expect(await suspendOverdueServices(platform.deps, run)).toMatchObject({ changed: 1 });
    expect((await service(id)).status).toBe('suspended');
    expect(upstream.control.host(hostId)?.status).toBe('Suspended');
  });

  it('a host the upstream suspended already is recorded without a second action (reconciled)', async () => {
    const hostId = takeHost(suspendedHosts);
    const id = await seedService(platform, { userId, nextDueAt: daysFromNow(-4), upstream: { supplierId, hostId } });
    await onlyThese([id]);
    expect(await suspendOverdueServices(platform.deps, run)).toMatchObject({ changed: 1 });
    expect(upstream.control.ledger().hostActions[`${hostId}:suspend`]).toBeUndefined();
    expect((await serviceEvents(platform, id))[0]?.detail).toMatchObject({ reconciled: true });
  });

  it('suspends a service without an upstream binding locally', async () => {
    const id = await seedService(platform, { userId, nextDueAt: daysFromNow(-4) });
    await onlyThese([id]);
    expect(await suspendOverdueServices(platform.deps, run)).toMatchObject({ changed_locally: 1 });
    expect(await service(id)).toMatchObject({ status: 'suspended', suspend_reason: 'overdue', upstream_status: '' });
    expect((await serviceEvents(platform, id))[0]?.message).toBe('服务已到期未续费，已暂停（未绑定上游主机，仅本地变更）');
  });
});

describe('terminating after the grace period', () => {
  it('terminates services suspended longer than TERMINATE_AFTER_DAYS through the upstream, not the others, once', async () => {
    const hostId = takeHost(activeHosts);
    const due = await seedService(platform, {
      userId,
      status: 'suspended',
      suspendReason: 'overdue',
      nextDueAt: daysFromNow(-12),
      suspendedAt: daysFromNow(-8),
      upstream: { supplierId, hostId },
    });
    const young = await seedService(platform, { userId, status: 'suspended', suspendReason: 'overdue', nextDueAt: daysFromNow(-6), suspendedAt: daysFromNow(-2) });
    const byAdmin = await seedService(platform, { userId, status: 'suspended', suspendReason: 'admin', nextDueAt: daysFromNow(-30), suspendedAt: daysFromNow(-20) });
    await onlyThese([due, young, byAdmin]);
    notifier.mail.control.clearMessages();
    const first = await terminateOverdueServices(platform.deps, run);
    expect(first).toMatchObject({ candidates: 1, changed: 1, terminate_after_days: 7 });
    expect(first.notices).toMatchObject({ mail_sent: 1, sms_sent: 1 });
    expect(notifier.mail.control.messages().map((m) => m.subject)).toEqual(['【主机转售平台】服务已终止']);
    expect(await service(due)).toMatchObject({ status: 'terminated', suspend_reason: null, upstream_status: 'terminated' });
    expect((await service(due)).terminated_at).not.toBeNull();
    expect(upstream.control.host(hostId)?.status).toBe('Terminated');
    expect((await service(young)).status).toBe('suspended');
    expect((await service(byAdmin)).status).toBe('suspended');

    expect(await terminateOverdueServices(platform.deps, run)).toMatchObject({ candidates: 0, changed: 0 });
    expect(upstream.control.ledger().hostActions[`${hostId}:terminate`]).toBe(1);
    expect(notifier.mail.control.messages()).toHaveLength(1);
  });

  it('a host the upstream has already deleted counts as terminated', async () => {
    const hostId = takeHost(activeHosts);
    const id = await seedService(platform, {
      userId,
      status: 'suspended',
      suspendReason: 'overdue',
      nextDueAt: daysFromNow(-12),
      suspendedAt: daysFromNow(-9),
      upstream: { supplierId, hostId },
    });
    await onlyThese([id]);
    upstream.control.removeHost(hostId);
    expect(await terminateOverdueServices(platform.deps, run)).toMatchObject({ changed: 1 });
    expect(await service(id)).toMatchObject({ status: 'terminated', upstream_status: 'gone' });
  });
});

describe('unsuspending renewed services', () => {
  it('lifts an overdue suspension through the upstream once the due date is in the future again, once', async () => {
    const hostId = takeHost(suspendedHosts);
    const renewed = await seedService(platform, {
      userId,
      status: 'suspended',
      suspendReason: 'overdue',
      nextDueAt: daysFromNow(25),
      suspendedAt: daysFromNow(-2),
      upstream: { supplierId, hostId },
    });
    const unpaid = await seedService(platform, { userId, status: 'suspended', suspendReason: 'overdue', nextDueAt: daysFromNow(-5), suspendedAt: daysFromNow(-2) });
    const byAdmin = await seedService(platform, { userId, status: 'suspended', suspendReason: 'admin', nextDueAt: daysFromNow(25), suspendedAt: daysFromNow(-2) });
    await onlyThese([renewed, unpaid, byAdmin]);
    const first = await unsuspendRenewedServices(platform.deps, run);
    expect(first).toMatchObject({ candidates: 1, changed: 1 });
    expect(await service(renewed)).toMatchObject({ status: 'active', suspend_reason: null, suspended_at: null, upstream_status: 'active' });
    expect(upstream.control.host(hostId)?.status).toBe('Active');
    expect((await serviceEvents(platform, renewed)).map((e) => [e.stage, e.status, e.message])).toEqual([
      ['unsuspend', 'succeeded', '续费已完成，服务已恢复（上游已确认）'],
    ]);
    expect((await service(unpaid)).status).toBe('suspended');
    expect((await service(byAdmin)).status).toBe('suspended');

    expect(await unsuspendRenewedServices(platform.deps, run)).toMatchObject({ candidates: 0, changed: 0 });
    expect(upstream.control.ledger().hostActions[`${hostId}:unsuspend`]).toBe(1);
  });

  it('a failed unsuspension keeps the service suspended and is retried by the next run', async () => {
    const hostId = takeHost(suspendedHosts);
    const id = await seedService(platform, { userId, status: 'suspended', suspendReason: 'overdue', nextDueAt: daysFromNow(25), suspendedAt: daysFromNow(-1), upstream: { supplierId, hostId } });
    await onlyThese([id]);
    upstream.control.failNext(1, 'maintenance', { path: '/provision/default' });
    expect(await unsuspendRenewedServices(platform.deps, run)).toMatchObject({ failed: 1 });
    expect((await service(id)).status).toBe('suspended');
    expect(await unsuspendRenewedServices(platform.deps, run)).toMatchObject({ changed: 1 });
    expect((await service(id)).status).toBe('active');
  });
});

import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvisioningActivities } from '../../../activities/provisioning.js';
import { sqlOne } from '../../../db/sql.js';
import { provisioningWork } from '../../../domain/upstream-work/kinds.js';
import { enterWorkStage, enterWorkStageOnce } from '../../../domain/upstream-work/record.js';
import { provisionWorkflowId } from '../../../workflows/provisioning/contract.js';
import { createUser, seedService, serviceEvents } from '../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

/**
 * The stage record folded into a provisioning step (patch `provision-stage-in-step`): a step
 * given `entering` records its stage first, once, however often it runs (local activities retry,
 * a worker crash runs them again); the step itself stays idempotent.
 */
let platform: TestPlatform;
let userId: number;
let supplierId: number;

beforeAll(async () => {
  platform = await startTestPlatform();
  userId = (await createUser(platform)).id;
  const supplier = await sqlOne<{ id: number }>(
    platform.deps,
    `INSERT INTO suppliers (code, name, interface_type, base_url, account) VALUES ('fold-test', '测试供应商', 'upstream_finance_api', 'https://upstream.example.com', 'acct') RETURNING id`,
    [],
  );
  supplierId = supplier?.id ?? 0;
});
afterAll(async () => {
  await platform?.close();
});

const pending = () => seedService(platform, { userId, status: 'pending', nextDueAt: null });

async function provisionEvents(serviceId: number) {
  const events = await serviceEvents(platform, serviceId);
  return events.filter((e) => e.kind === 'provision').map((e) => `${e.stage} ${e.status}`);
}

async function service(serviceId: number) {
  const row = await platform.deps.db.models.Service.findByPk(serviceId);
  if (!row) throw new Error('service gone');
  return row;
}

describe('a step that records its own stage', () => {
  it('writes the started row once when the same step runs twice (prepare, without an upstream)', async () => {
    const serviceId = await pending();
    const workflowId = provisionWorkflowId(serviceId);
    const activities = createProvisioningActivities(platform.deps);
    const entering = { stage: 'prepare', workflowId };
    const first = await activities.prepareProvisioning({ serviceId, workflowId, entering });
    const afterFirst = await service(serviceId);
    const again = await activities.prepareProvisioning({ serviceId, workflowId, entering });
    expect(first).toMatchObject({ kind: 'no_upstream', serviceId, reason: '商品未绑定上游供应商，无法自动开通' });
    expect(again).toEqual(first);
    expect(await provisionEvents(serviceId)).toEqual(['prepare started']);
    const row = await service(serviceId);
    expect(row.provisioning_stage).toBe('prepare');
    // Prepare made the reference and the password once; the second run changed nothing.
    expect(row.downstream_token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(row.password_sealed).not.toBe('');
    expect(row.downstream_token).toBe(afterFirst.downstream_token);
    expect(row.updated_at).toEqual(afterFirst.updated_at);
    expect(row.stage_changed_at).toEqual(afterFirst.stage_changed_at);
  });

  it('binds and activates once, each stage and each success one row, and completes the order', async () => {
    const serviceId = await seedService(platform, { userId, status: 'pending', nextDueAt: null, upstream: { supplierId, hostId: 910_001 } });
    await sqlOne(platform.deps, `UPDATE service_upstream_bindings SET upstream_host_id = NULL, bound_at = NULL WHERE service_id = $1 RETURNING service_id`, [serviceId]);
    const { order_id: orderId } = await service(serviceId);
    await platform.deps.db.models.Order.update({ status: 'paid', completed_at: null }, { where: { id: orderId } });
    const workflowId = provisionWorkflowId(serviceId);
    const activities = createProvisioningActivities(platform.deps);

    const bind = { serviceId, hostId: 910_002, workflowId, entering: { stage: 'bind', workflowId } };
    await activities.bindUpstreamHost(bind);
    await activities.bindUpstreamHost(bind);
    const binding = await platform.deps.db.models.ServiceUpstreamBinding.findByPk(serviceId);
    expect(binding?.upstream_host_id).toBe(910_002);
    expect(binding?.bound_at).toBeInstanceOf(Date);

    const host = { hostId: 910_002, status: 'active', ip: '203.0.113.7', assignedIps: ['203.0.113.7'], os: 'Ubuntu 22.04', username: 'root', port: 22, upstreamDueAt: null };
    const activate = { serviceId, host, workflowId, entering: { stage: 'activate', workflowId } };
    await activities.activateService(activate);
    const activated = await service(serviceId);
    await activities.activateService(activate);

    expect(await provisionEvents(serviceId)).toEqual(['bind started', 'bind succeeded', 'activate started', 'activate succeeded']);
    const row = await service(serviceId);
    expect(row).toMatchObject({ status: 'active', provisioning_stage: 'done', ip: '203.0.113.7', assigned_ips: ['203.0.113.7'], os: 'Ubuntu 22.04', port: 22, upstream_status: 'active' });
    expect(row.activated_at).toEqual(activated.activated_at);
    // A monthly service is due a calendar month after its activation.
    expect(row.next_due_at?.getTime()).toBeGreaterThan((row.activated_at?.getTime() ?? 0) + 27 * 86_400_000);
    expect(row.next_due_at?.getTime()).toBeLessThan((row.activated_at?.getTime() ?? 0) + 32 * 86_400_000);
    expect((await platform.deps.db.models.Order.findByPk(orderId))?.status).toBe('completed');
  });

  it('refuses a host another service holds, naming it, as a permanent failure', async () => {
    const holder = await seedService(platform, { userId, status: 'active', nextDueAt: null, upstream: { supplierId, hostId: 910_010 } });
    const serviceId = await seedService(platform, { userId, status: 'pending', nextDueAt: null, upstream: { supplierId, hostId: 910_011 } });
    const workflowId = provisionWorkflowId(serviceId);
    const failure = await createProvisioningActivities(platform.deps)
      .bindUpstreamHost({ serviceId, hostId: 910_010, workflowId, entering: { stage: 'bind', workflowId } })
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'UpstreamPermanent', nonRetryable: true, details: [{ code: 'upstream_host_taken' }] });
    expect((failure as Error).message).toContain(`#${holder}`);
    // The stage was recorded before the step failed: the work parks at it.
    expect((await service(serviceId)).provisioning_stage).toBe('bind');
    expect(await provisionEvents(serviceId)).toEqual(['bind started']);
  });

  it('leaves finished work where it is (a prepare that finds the service active)', async () => {
    const serviceId = await seedService(platform, { userId, status: 'active', nextDueAt: null });
    const workflowId = provisionWorkflowId(serviceId);
    const prepared = await createProvisioningActivities(platform.deps).prepareProvisioning({ serviceId, workflowId, entering: { stage: 'prepare', workflowId } });
    expect(prepared).toEqual({ kind: 'finished', serviceId, status: 'active' });
    expect(await provisionEvents(serviceId)).toEqual([]);
    expect((await service(serviceId)).provisioning_stage).toBe('');
  });

  it('enters a stage again once the work has moved on, and only then', async () => {
    const serviceId = await pending();
    const work = provisioningWork(serviceId);
    const workflowId = provisionWorkflowId(serviceId);
    expect(await enterWorkStageOnce(platform.deps, work, { stage: 'login', workflowId })).toBe(true);
    expect(await enterWorkStageOnce(platform.deps, work, { stage: 'login', workflowId })).toBe(false);
    expect(await enterWorkStageOnce(platform.deps, work, { stage: 'cart', workflowId })).toBe(true);
    // A stage the work comes back to is entered anew (as `prepare` after an admin's retry, or `upstream_pay` after a funds wait).
    expect(await enterWorkStageOnce(platform.deps, work, { stage: 'login', workflowId })).toBe(true);
    expect(await provisionEvents(serviceId)).toEqual(['login started', 'cart started', 'login started']);
  });

  it('leaves the stage record of runs recorded before the patch as it was: one row per call', async () => {
    const serviceId = await pending();
    const workflowId = provisionWorkflowId(serviceId);
    const activities = createProvisioningActivities(platform.deps);
    await activities.enterProvisioningStage({ serviceId, stage: 'login', workflowId });
    await enterWorkStage(platform.deps, provisioningWork(serviceId), { stage: 'login', workflowId });
    expect(await provisionEvents(serviceId)).toEqual(['login started', 'login started']);
  });
});

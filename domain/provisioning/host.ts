import { addMonths, parseDateTime } from '../../lib/time.js';
import { billingPeriodMonths, isBillingPeriod } from '../catalogue/billing-periods.js';
import type { DomainDeps } from '../deps.js';
import { hostTakenError } from './host-taken.js';
import { recordServiceEvent } from '../services/service-events.js';
import { callSupplier } from '../suppliers/supplier-call.js';
import type { UpstreamPurchase } from './upstream-order.js';

/** What the platform keeps of an upstream host (never its password). */
export type HostSnapshot = {
  hostId: number;
  status: string;
  ip: string;
  assignedIps: string[];
  os: string;
  username: string;
  port: number | null;
  upstreamDueAt: string | null;
};

function readHost(hostId: number, raw: unknown): HostSnapshot {
  const h = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    hostId,
    status: text(h['status']) || 'unknown',
    ip: text(h['ip']),
    assignedIps: Array.isArray(h['assigned_ips']) ? h['assigned_ips'].filter((x): x is string => typeof x === 'string') : [],
    os: text(h['os']),
    username: text(h['username']),
    port: typeof h['port'] === 'number' ? h['port'] : null,
    upstreamDueAt: typeof h['next_due_at'] === 'string' ? h['next_due_at'] : null,
  };
}

/** One look at the host (the workflow polls until it is `active`). */
export async function lookupUpstreamHost(deps: DomainDeps, p: UpstreamPurchase, hostId: number): Promise<HostSnapshot> {
  const data = await callSupplier(deps, p.supplierId, 'upstream.host_detail', { host_id: hostId }, { traceId: p.traceId });
  return readHost(hostId, data['host']);
}

/** The service's upstream binding now names its host: from here the console works against it. */
export async function bindUpstreamHost(deps: DomainDeps, serviceId: number, hostId: number, workflowId: string): Promise<void> {
  await deps.db.sequelize.transaction(async (transaction) => {
    const binding = await deps.db.models.ServiceUpstreamBinding.findByPk(serviceId, { transaction, lock: transaction.LOCK.UPDATE });
    if (!binding) throw new Error(`service ${serviceId} has no upstream binding`);
    if (binding.bound_at && binding.upstream_host_id === hostId) return;
    try {
      await binding.update({ upstream_host_id: hostId, bound_at: new Date() }, { transaction });
    } catch (err) {
      throw await hostTakenError(deps, serviceId, hostId, err);
    }
    await recordServiceEvent(deps, { serviceId, kind: 'provision', stage: 'bind', status: 'succeeded', message: `已绑定上游主机 ${hostId}`, workflowId }, transaction);
  });
}

/**
 * The service becomes active with its host's data; its first period starts now. Its order is
 * completed once every service of the order is active. Idempotent.
 */
export async function activateService(deps: DomainDeps, serviceId: number, host: HostSnapshot | null, workflowId: string): Promise<void> {
  await deps.db.sequelize.transaction(async (transaction) => {
    const { Service, Order } = deps.db.models;
    const service = await Service.findByPk(serviceId, { transaction, lock: transaction.LOCK.UPDATE });
    if (!service) throw new Error(`service ${serviceId} not found`);
    if (service.status === 'active') return;
    const now = new Date();
    const months = isBillingPeriod(service.billing_period) ? billingPeriodMonths(service.billing_period) : null;
    await service.update(
      {
        status: 'active',
        activated_at: now,
        next_due_at: months === null ? null : addMonths(now, months),
        provisioning_stage: 'done',
        stage_changed_at: now,
        failure_code: null,
        failure_reason: null,
        ...(host
          ? {
              ip: host.ip,
              assigned_ips: host.assignedIps,
              os: host.os,
              username: host.username,
              port: host.port,
              upstream_status: host.status,
              upstream_due_at: host.upstreamDueAt ? parseDateTime(host.upstreamDueAt) : null,
              upstream_synced_at: now,
            }
          : {}),
      },
      { transaction },
    );
    const pending = await Service.count({ where: { order_id: service.order_id, status: ['pending', 'provisioning', 'failed'] }, transaction });
    if (pending === 0) {
      await Order.update({ status: 'completed', completed_at: now }, { where: { id: service.order_id, status: 'paid' }, transaction });
    }
    await recordServiceEvent(deps, { serviceId, kind: 'provision', stage: 'activate', status: 'succeeded', message: '服务已开通', workflowId }, transaction);
  });
}

export type { UpstreamPurchase };

import { userActor } from '../../../lib/actor.js';
import { validationError } from '../../../lib/errors.js';
import { formatDateTime } from '../../../lib/time.js';
import type { DomainDeps } from '../../deps.js';
import { requireSupplierData } from '../../suppliers/upstream-result.js';
import { findServiceView } from '../find-service.js';
import { invokeServiceUpstream } from '../service-upstream.js';
import { takeConsoleAction } from './action-limit.js';
import { requireConsoleAction } from './resolve-capabilities.js';

export const MONITORING_METRICS = ['cpu', 'memory', 'disk_read', 'disk_write', 'bandwidth_in', 'bandwidth_out'] as const;
export type MonitoringMetric = (typeof MONITORING_METRICS)[number];
export const MONITORING_METRIC_LABELS: Record<MonitoringMetric, string> = {
  cpu: 'CPU 使用率',
  memory: '内存使用率',
  disk_read: '磁盘读取',
  disk_write: '磁盘写入',
  bandwidth_in: '入网带宽',
  bandwidth_out: '出网带宽',
};
/** Points per answer: default and bound (the spec's one business `limit`). */
export const MONITORING_LIMIT = { default: 60, max: 500 } as const;
/** The widest range one request may ask for, and the default (the last day). */
export const MONITORING_RANGE = { maxDays: 31, defaultHours: 24 } as const;

export type MonitoringInput = { serviceId: number; userId: number; metric: MonitoringMetric; from?: Date | undefined; to?: Date | undefined; limit?: number | undefined };

/**
 * Monitoring points of the service's host for a time range, read live through the upstream
 * plugin (`upstream.host_monitoring`), nothing stored. The range never starts before the
 * service's activation, and points from before it are dropped even if the upstream sends them:
 * a host that served another customer before never shows that customer's load. A service never
 * activated has no points (nothing is asked upstream).
 */
export async function readServiceMonitoring(deps: DomainDeps, input: MonitoringInput) {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  await requireConsoleAction(deps, service, 'monitoring', input.userId);
  const to = input.to ?? new Date();
  const from = input.from ?? new Date(to.getTime() - MONITORING_RANGE.defaultHours * 3_600_000);
  if (from.getTime() > to.getTime()) throw validationError({ from: ['开始时间不能晚于结束时间'] });
  if (to.getTime() - from.getTime() > MONITORING_RANGE.maxDays * 86_400_000) throw validationError({ to: [`查询范围不能超过 ${MONITORING_RANGE.maxDays} 天`] });
  const limit = input.limit ?? MONITORING_LIMIT.default;
  await takeConsoleAction(deps, input.userId, 'monitoring');
  const activatedAt = service.activated_at;
  const floor = activatedAt ? Math.ceil(activatedAt.getTime() / 1000) : null;
  const start = floor === null ? null : Math.max(Math.floor(from.getTime() / 1000), floor);
  const end = Math.floor(to.getTime() / 1000);
  const base = {
    service_id: service.id,
    metric: input.metric,
    metric_label: MONITORING_METRIC_LABELS[input.metric],
    from: formatDateTime(start === null ? from : new Date(start * 1000)) as string,
    to: formatDateTime(to) as string,
    limit,
    activated_at: formatDateTime(activatedAt),
  };
  if (start === null || start > end) return { ...base, unit: '', points: [] };
  const result = await invokeServiceUpstream(deps, service.id, {
    action: 'upstream.host_monitoring',
    payload: { metric: input.metric, from: start, to: end, limit },
    actor: userActor(input.userId),
  });
  const data = requireSupplierData(result);
  const raw = Array.isArray(data['points']) ? (data['points'] as Array<{ time?: unknown; value?: unknown }>) : [];
  const points = raw
    .filter((p): p is { time: number; value: number } => typeof p.time === 'number' && typeof p.value === 'number' && Number.isFinite(p.value))
    .filter((p) => p.time >= start && p.time <= end)
    .slice(0, limit)
    .map((p) => ({ time: formatDateTime(new Date(p.time * 1000)) as string, value: Math.round(p.value * 100) / 100 }));
  return { ...base, unit: typeof data['unit'] === 'string' ? data['unit'].slice(0, 16) : '', points };
}

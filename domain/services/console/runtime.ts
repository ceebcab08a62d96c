import { userActor } from '../../../lib/actor.js';
import type { DomainDeps } from '../../deps.js';
import { requireSupplierData } from '../../suppliers/upstream-result.js';
import { findServiceView } from '../find-service.js';
import { invokeServiceUpstream } from '../service-upstream.js';
import { requireConsoleAction } from './resolve-capabilities.js';

type Bandwidth = { limit_gb?: unknown; used_gb?: unknown; extra_gb?: unknown };

/**
 * The host's live state from the upstream (a read: not written to the history): its status,
 * power state and traffic. Nothing is stored; the heartbeat's host polling keeps our copy.
 */
export async function readServiceRuntime(deps: DomainDeps, input: { serviceId: number; userId: number }) {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  await requireConsoleAction(deps, service, 'runtime', input.userId);
  const actor = userActor(input.userId);
  const [detail, power] = await Promise.all([
    invokeServiceUpstream(deps, service.id, { action: 'upstream.host_detail', actor }),
    invokeServiceUpstream(deps, service.id, { action: 'upstream.host_action', payload: { action: 'status' }, actor }),
  ]);
  const host = (requireSupplierData(detail)['host'] ?? {}) as { status?: unknown; bandwidth?: Bandwidth };
  const powerStatus = requireSupplierData(power)['power_status'];
  const bandwidth = host.bandwidth ?? {};
  const asNumber = (v: unknown) => (typeof v === 'number' ? v : null);
  return {
    service_id: service.id,
    upstream_status: typeof host.status === 'string' ? host.status : 'unknown',
    power_status: typeof powerStatus === 'string' ? powerStatus : 'unknown',
    traffic: {
      limit_gb: asNumber(bandwidth.limit_gb),
      used_gb: typeof bandwidth.used_gb === 'string' ? bandwidth.used_gb : null,
      extra_gb: asNumber(bandwidth.extra_gb) ?? 0,
    },
  };
}

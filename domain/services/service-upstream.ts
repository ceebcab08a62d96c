import { AppError, ErrorCode } from '../../lib/errors.js';
import type { ServiceUpstreamBindingRow } from '../../db/models/service.js';
import type { Actor } from '../../lib/actor.js';
import type { PluginInvocation } from '../../plugins/runtime/invoke.js';
import type { DomainDeps } from '../deps.js';
import { invokeSupplierPlugin } from '../suppliers/supplier-plugin.js';

/** The service's upstream binding with a known host, or 42200: the console is read-only without one. */
export async function requireBoundHost(deps: DomainDeps, serviceId: number): Promise<ServiceUpstreamBindingRow & { upstream_host_id: number }> {
  const binding = await deps.db.models.ServiceUpstreamBinding.findByPk(serviceId);
  if (!binding || !binding.upstream_host_id) throw new AppError(ErrorCode.VALIDATION, '该服务尚未绑定上游主机，暂不支持此操作');
  return binding as ServiceUpstreamBindingRow & { upstream_host_id: number };
}

/**
 * Calls the upstream plugin of a service's supplier about its host: the supplier's own
 * credentials, `host_id` from the binding, everything logged (redacted) in the runtime log.
 */
export async function invokeServiceUpstream(
  deps: DomainDeps,
  serviceId: number,
  call: { action: string; payload?: Record<string, unknown>; actor?: Actor; traceId?: string; timeoutMs?: number },
): Promise<PluginInvocation> {
  const binding = await requireBoundHost(deps, serviceId);
  return invokeSupplierPlugin(deps, binding.supplier_id, {
    ...call,
    payload: { ...call.payload, host_id: binding.upstream_host_id },
  });
}

import { SYSTEM_ACTOR } from '../../lib/actor.js';
import { AppError, ErrorCode } from '../../lib/errors.js';
import type { Actor } from '../../lib/actor.js';
import { invokePlugin, type PluginInvocation } from '../../plugins/runtime/invoke.js';
import type { SupplierRow } from '../../db/models/supplier.js';
import type { DomainDeps } from '../deps.js';
import { getSupplier } from './suppliers.js';

export type SupplierCall = {
  action: string;
  payload?: Record<string, unknown>;
  actor?: Actor;
  traceId?: string;
  timeoutMs?: number;
};

/**
 * Calls the supplier's upstream plugin with the supplier's own address, account and (decrypted)
 * API key laid over the plugin configuration, and `supplier_id` in the payload so the plugin
 * keeps one token cache entry per supplier and provider key. The key is redacted from the
 * runtime log like any plugin secret.
 */
export async function invokeSupplierPlugin(deps: DomainDeps, supplier: SupplierRow | number, call: SupplierCall): Promise<PluginInvocation> {
  const row = typeof supplier === 'number' ? await getSupplier(deps, supplier) : supplier;
  // A disabled supplier still serves its existing services (renewals, host state); only new
  // purchases check `status`. Without a plugin (force-uninstalled) nothing can be called.
  if (row.plugin_id === null) throw new AppError(ErrorCode.VALIDATION, '供应商未关联上游插件，请重新选择插件');
  const apiKey = row.api_key_sealed ? deps.secretBox.open(row.api_key_sealed) : '';
  return invokePlugin(deps, {
    domain: 'upstream',
    pluginId: row.plugin_id,
    action: call.action,
    payload: { ...call.payload, supplier_id: row.id },
    actor: call.actor ?? SYSTEM_ACTOR,
    ...(call.traceId ? { traceId: call.traceId } : {}),
    ...(call.timeoutMs ? { timeoutMs: call.timeoutMs } : {}),
    overrides: { config: { base_url: row.base_url, account: row.account, api_key: apiKey }, secretValues: apiKey ? [apiKey] : [] },
  });
}

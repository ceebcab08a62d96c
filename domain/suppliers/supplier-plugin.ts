import { SYSTEM_ACTOR } from '../../lib/actor.js';
import { AppError, ErrorCode, notFound } from '../../lib/errors.js';
import type { Actor } from '../../lib/actor.js';
import { invokePlugin, type PluginInvocation } from '../../plugins/runtime/invoke.js';
import type { SupplierRow } from '../../db/models/supplier.js';
import type { DomainDeps } from '../deps.js';
import { sqlOne, statement } from '../../db/sql.js';
import { upstreamCalls } from '../../lib/metrics.js';
import { callOutcome, recordSupplierCall } from './health.js';

/** What a call needs of its supplier. */
type SupplierForCall = Pick<SupplierRow, 'id' | 'plugin_id' | 'base_url' | 'account' | 'api_key_sealed'>;

/** Every upstream call reads its supplier: one prepared statement, without Sequelize's per-query work. */
const SUPPLIER_FOR_CALL = statement('SELECT id, plugin_id, base_url, account, api_key_sealed FROM suppliers WHERE id = $1');

async function supplierForCall(deps: DomainDeps, id: number): Promise<SupplierForCall> {
  const row = await sqlOne<SupplierForCall>(deps, SUPPLIER_FOR_CALL, [id]);
  if (!row) throw notFound('供应商不存在');
  return row;
}

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
export async function invokeSupplierPlugin(deps: DomainDeps, supplier: SupplierForCall | number, call: SupplierCall): Promise<PluginInvocation> {
  const row = typeof supplier === 'number' ? await supplierForCall(deps, supplier) : supplier;
  // A disabled supplier still serves its existing services (renewals, host state); only new
  // purchases check `status`. Without a plugin (force-uninstalled) nothing can be called.
  if (row.plugin_id === null) throw new AppError(ErrorCode.VALIDATION, '供应商未关联上游插件，请重新选择插件');
  const apiKey = row.api_key_sealed ? deps.secretBox.open(row.api_key_sealed) : '';
  const started = performance.now();
  const invocation = await invokePlugin(deps, {
    domain: 'upstream',
    pluginId: row.plugin_id,
    action: call.action,
    payload: { ...call.payload, supplier_id: row.id },
    actor: call.actor ?? SYSTEM_ACTOR,
    ...(call.traceId ? { traceId: call.traceId } : {}),
    ...(call.timeoutMs ? { timeoutMs: call.timeoutMs } : {}),
    overrides: { config: { base_url: row.base_url, account: row.account, api_key: apiKey }, secretValues: apiKey ? [apiKey] : [] },
  });
  // Suppliers are few (admin-created rows): their id is a bounded label.
  upstreamCalls.inc({ supplier: String(row.id), outcome: invocation.status });
  // Supplier health (domain/suppliers/health.ts): every upstream call passes here, so its outcome
  // and latency are recorded here once (a cancelled call threw above and counts nothing).
  await recordSupplierCall(deps, row.id, call.action, callOutcome(invocation), performance.now() - started);
  return invocation;
}

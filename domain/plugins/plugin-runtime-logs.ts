import { sqlParams } from '../../db/sql.js';
import { listLogRows } from '../logs/log-list.js';
import { notFound } from '../../lib/errors.js';
import type { PluginRunStatus, PluginRuntimeLogRow } from '../../db/models/plugin-runtime-log.js';
import type { PluginDomain } from '../../plugins/runtime/contract.js';
import type { Actor } from '../../lib/actor.js';
import { invokePlugin } from '../../plugins/runtime/invoke.js';
import type { DomainDeps } from '../deps.js';
import { getPlugin } from './plugin-catalogue.js';

export type RuntimeLogListQuery = {
  page: number;
  page_size: number;
  domain?: PluginDomain | undefined;
  plugin_id?: number | undefined;
  status?: PluginRunStatus | undefined;
  action?: string | undefined;
};

/** Newest first (the partitions' order), each filter on an index; bounded as every log list. */
export async function listPluginRuntimeLogs(deps: DomainDeps, query: RuntimeLogListQuery) {
  const { values, param } = sqlParams();
  const conditions: string[] = [];
  for (const key of ['domain', 'plugin_id', 'status', 'action'] as const) {
    if (query[key] !== undefined) conditions.push(`${key} = ${param(query[key])}`);
  }
  const { rows, total } = await listLogRows<PluginRuntimeLogRow['_creationAttributes']>(deps, {
    select: '*',
    from: 'plugin_runtime_logs r',
    conditions,
    values,
    order: 'r.created_at DESC, r.id DESC',
    paging: query,
  });
  return { rows: deps.db.models.PluginRuntimeLog.bulkBuild(rows, { isNewRecord: false, raw: true }), total };
}

export async function getPluginRuntimeLog(deps: DomainDeps, id: number): Promise<PluginRuntimeLogRow> {
  const row = await deps.db.models.PluginRuntimeLog.findByPk(id);
  if (!row) throw notFound('运行日志不存在');
  return row;
}

export const HEALTH_CHECK_ACTION = 'health_check';

/** Runs the plugin's `health_check` action (any installed state); the outcome is in the answer and the runtime log. */
export async function checkPluginHealth(deps: DomainDeps, id: number, actor: Actor, traceId?: string) {
  const plugin = await getPlugin(deps, id);
  return invokePlugin(deps, {
    domain: plugin.domain,
    pluginId: plugin.id,
    action: HEALTH_CHECK_ACTION,
    payload: {},
    actor,
    allowNotEnabled: true,
    timeoutMs: 10_000,
    ...(traceId ? { traceId } : {}),
  });
}

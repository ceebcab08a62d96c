import { type WhereOptions } from 'sequelize';
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

export async function listPluginRuntimeLogs(deps: DomainDeps, query: RuntimeLogListQuery) {
  const where: WhereOptions<PluginRuntimeLogRow> = {};
  for (const key of ['domain', 'plugin_id', 'status', 'action'] as const) {
    if (query[key] !== undefined) Object.assign(where, { [key]: query[key] });
  }
  const { rows, count } = await deps.db.models.PluginRuntimeLog.findAndCountAll({
    where,
    order: [['id', 'DESC']],
    limit: query.page_size,
    offset: (query.page - 1) * query.page_size,
  });
  return { rows, total: count };
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

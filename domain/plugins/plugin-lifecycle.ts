import { AppError, conflict, ErrorCode, notFound, validationError } from '../../lib/errors.js';
import type { PluginRow } from '../../db/models/plugin.js';
import { sqlRows } from '../../db/sql.js';
import { applyConfig } from '../../plugins/runtime/config-apply.js';
import { detachPluginReferences, findPluginReferences, type PluginReference } from '../../plugins/runtime/references.js';
import { missingRequired } from '../../plugins/runtime/required-check.js';
import type { DomainDeps } from '../deps.js';
import { publishCatalogueChange } from '../catalogue/catalogue-events.js';
// Registers the product upstream bindings as references that block an uninstall.
import '../catalogue/plugin-references.js';
import { takenTaskKeys } from '../tasks/catalogue.js';
import { getPlugin } from './plugin-catalogue.js';
import { recordSystemLog } from '../logs/system-logs.js';

const pluginEvent = (deps: DomainDeps, event: string, message: string, plugin: { id: number; domain: string; slug: string }) =>
  recordSystemLog(deps, { category: 'plugin', event, message, detail: { plugin_id: plugin.id, domain: plugin.domain, slug: plugin.slug } });

/** `configure`: any installed state, the status does not change; secrets are sealed. */
export async function updatePluginConfig(deps: DomainDeps, id: number, submitted: Record<string, unknown>): Promise<PluginRow> {
  const plugin = await getPlugin(deps, id);
  const next = applyConfig({
    fields: plugin.manifest.config,
    stored: { config: plugin.config, secrets: plugin.secrets },
    submitted,
    secretBox: deps.secretBox,
    requireAll: plugin.status === 'enabled',
  });
  plugin.config = next.config;
  plugin.secrets = next.secrets;
  plugin.changed('config', true);
  plugin.changed('secrets', true);
  await plugin.save();
  // Field names only: values (secrets among them) never reach the system log.
  await recordSystemLog(deps, {
    category: 'plugin',
    event: 'plugin.configured',
    message: `插件 ${plugin.slug} 的配置已修改`,
    detail: { plugin_id: plugin.id, domain: plugin.domain, slug: plugin.slug, fields: Object.keys(submitted).slice(0, 50) },
  });
  return plugin;
}

/**
 * Serialises enables: two plugins declaring the same task key cannot both pass the check.
 * The lock number is arbitrary but fixed (ASCII "plugenab").
 */
const ENABLE_LOCK = 0x706c7567656e6162n;

/** The first task key of the plugin that another enabled plugin or a built-in task already uses. */
async function taskKeyCollision(deps: DomainDeps, plugin: PluginRow): Promise<string | null> {
  const taken = await takenTaskKeys(deps, plugin.id);
  for (const task of plugin.manifest.info.extra?.scheduled_tasks ?? []) {
    const owner = taken.get(task.key);
    if (owner !== undefined) return `任务 key（${task.key}）已被${owner}使用，无法启用`;
  }
  return null;
}

/**
 * `installed | disabled → enabled` once every required field (per `visible_when`) is filled and
 * none of its task keys is in use by a built-in task or another enabled plugin (40900).
 */
export async function enablePlugin(deps: DomainDeps, id: number): Promise<PluginRow> {
  const enabled = await deps.db.sequelize.transaction(async (transaction) => {
    await sqlRows(deps, 'SELECT pg_advisory_xact_lock($1)', [ENABLE_LOCK.toString()], transaction);
    const plugin = await getPlugin(deps, id);
    if (plugin.status === 'enabled') throw conflict('插件已启用');
    const missing = missingRequired(plugin.manifest.config, { config: plugin.config, secrets: plugin.secrets }, 'enable');
    if (Object.keys(missing).length > 0) throw validationError(missing, '请先完成插件的必填配置再启用');
    const collision = await taskKeyCollision(deps, plugin);
    if (collision) throw conflict(collision);
    plugin.status = 'enabled';
    plugin.enabled_at = new Date();
    await plugin.save({ transaction });
    // Upstream plugins drive the purchase page and purchasability of the products bound to them.
    if (plugin.domain === 'upstream') await publishCatalogueChange(deps, transaction);
    return plugin;
  });
  await pluginEvent(deps, 'plugin.enabled', `插件 ${enabled.slug} 已启用`, enabled);
  return enabled;
}

/** `enabled → disabled` (our decision for the target state); bindings stay but are not used. */
export async function disablePlugin(deps: DomainDeps, id: number): Promise<PluginRow> {
  const plugin = await getPlugin(deps, id);
  if (plugin.status !== 'enabled') throw conflict('只有已启用的插件可以停用');
  plugin.status = 'disabled';
  plugin.disabled_at = new Date();
  await plugin.save();
  if (plugin.domain === 'upstream') await publishCatalogueChange(deps);
  await pluginEvent(deps, 'plugin.disabled', `插件 ${plugin.slug} 已停用`, plugin);
  return plugin;
}

function describeReferences(references: PluginReference[]): string {
  return references.map((r) => `${r.label} ${r.count} 条`).join('、');
}

/**
 * `any → removed`, irreversible; the files stay. Refused with 40901 naming the references
 * unless `force`, which detaches them (bindings deleted, other tables per their checker).
 */
export async function uninstallPlugin(deps: DomainDeps, id: number, force: boolean) {
  const removed = await deps.db.sequelize.transaction(async (transaction) => {
    const plugin = await deps.db.models.Plugin.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
    if (!plugin) throw notFound('插件不存在或未安装');
    const ref = { id: plugin.id, domain: plugin.domain, slug: plugin.slug };
    const references = await findPluginReferences(deps, ref, transaction);
    if (references.length > 0 && !force) {
      throw new AppError(
        ErrorCode.IN_USE,
        `插件仍被业务数据引用：${describeReferences(references)}；确认卸载请使用 force=1 强制卸载`,
        { references },
      );
    }
    await detachPluginReferences(deps, ref, transaction);
    await plugin.destroy({ transaction });
    return { id: ref.id, domain: ref.domain, slug: ref.slug, detached: references };
  });
  await pluginEvent(deps, 'plugin.uninstalled', `插件 ${removed.slug} 已卸载${removed.detached.length ? '（强制，已解除引用）' : ''}`, removed);
  return removed;
}

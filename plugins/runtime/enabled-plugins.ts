import { join } from 'node:path';
import type { PluginRow } from '../../db/models/plugin.js';
import type { RuntimeDeps } from './deps.js';
import type { PluginDomain, ScheduledTaskDeclaration } from './contract.js';
import { loadPluginEntry } from './entry.js';
import { type HookListenerFn, resolveHookListener } from './hook-listener.js';
import { pluginsRoot } from './plugins-root.js';

export type EnabledPluginTask = { pluginId: number; domain: PluginDomain; slug: string; task: ScheduledTaskDeclaration };

/** Scheduled tasks of enabled plugins only (spec: Plugin lifecycle), from the install snapshot. */
export async function listEnabledPluginTasks(deps: RuntimeDeps): Promise<EnabledPluginTask[]> {
  const rows = await deps.db.models.Plugin.findAll({ where: { status: 'enabled' }, order: [['id', 'ASC']] });
  return rows.flatMap((p) =>
    (p.manifest.info.extra?.scheduled_tasks ?? []).map((task) => ({ pluginId: p.id, domain: p.domain, slug: p.slug, task })),
  );
}

export type EnabledHookListener = {
  plugin: PluginRow;
  /** The listener as declared, for logs. */
  listener: string;
  call: HookListenerFn;
};

/**
 * The listeners enabled plugins declared for one hook, resolved against their entry modules.
 * A plugin whose entry no longer loads is skipped with a warning (a failing hook never stops
 * the schedule); the caller runs each listener and handles its failure the same way.
 */
export async function enabledHookListeners(deps: RuntimeDeps, hook: string): Promise<EnabledHookListener[]> {
  const rows = await deps.db.models.Plugin.findAll({ where: { status: 'enabled' }, order: [['id', 'ASC']] });
  const found: EnabledHookListener[] = [];
  for (const plugin of rows) {
    const listeners = plugin.manifest.info.extra?.schedule_hooks?.[hook];
    if (!listeners?.length) continue;
    const entry = await loadPluginEntry(join(pluginsRoot(deps.config), plugin.domain, plugin.slug), plugin.manifest.info.entry);
    if (!entry.ok) {
      deps.logger.warn({ plugin: plugin.slug, hook, reason: entry.reason }, 'plugin hook skipped: entry not loadable');
      continue;
    }
    for (const listener of listeners) {
      const resolved = resolveHookListener(entry.module, listener);
      if (resolved.ok) found.push({ plugin, listener: typeof listener === 'string' ? listener : JSON.stringify(listener), call: resolved.call });
      else deps.logger.warn({ plugin: plugin.slug, hook, reason: resolved.reason }, 'plugin hook listener skipped');
    }
  }
  return found;
}

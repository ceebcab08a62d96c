import { listEnabledPluginTasks } from '../../plugins/runtime/enabled-plugins.js';
import { DEFAULT_TASK_QUEUE } from '../../plugins/runtime/scheduled-tasks-check.js';
import type { DomainDeps } from '../deps.js';
import { BUILTIN_TASKS, RESERVED_TASK_KEYS } from './registry.js';
import type { TaskEntry } from './types.js';

/**
 * Every task the scheduler knows: built-in tasks in registry order, then the tasks of enabled
 * plugins (by plugin id, then declaration order). Disabled or installed-only plugins add none.
 */
export async function listTasks(deps: DomainDeps): Promise<TaskEntry[]> {
  const builtin: TaskEntry[] = BUILTIN_TASKS.map((t) => ({
    key: t.key,
    title: t.title,
    description: t.description,
    category: t.category,
    triggers: t.triggers,
    queue: t.queue,
    timeout: t.timeout,
    lockTtlSeconds: t.lockTtlSeconds,
    manualTriggerable: t.manualTriggerable,
    source: 'builtin',
    pluginId: null,
    pluginSlug: null,
  }));
  const plugin: TaskEntry[] = (await listEnabledPluginTasks(deps)).map(({ pluginId, slug, task }) => ({
    key: task.key,
    title: task.title,
    description: task.description ?? '',
    category: task.category ?? '',
    triggers: task.triggers,
    queue: task.queue ?? DEFAULT_TASK_QUEUE,
    timeout: task.timeout,
    lockTtlSeconds: task.lockTtlSeconds,
    manualTriggerable: task.manualTriggerable ?? false,
    source: 'plugin',
    pluginId,
    pluginSlug: slug,
  }));
  return [...builtin, ...plugin];
}

export async function findTask(deps: DomainDeps, key: string): Promise<TaskEntry | null> {
  return (await listTasks(deps)).find((t) => t.key === key) ?? null;
}

/**
 * Task keys a plugin may not declare: the schedule keys, the built-in tasks and the tasks of
 * other enabled plugins, each with a Chinese description of its owner for the error message.
 */
export async function takenTaskKeys(deps: DomainDeps, exceptPluginId: number | null = null): Promise<Map<string, string>> {
  const taken = new Map<string, string>();
  for (const key of RESERVED_TASK_KEYS) taken.set(key, '系统计划');
  for (const t of BUILTIN_TASKS) taken.set(t.key, '内置任务');
  for (const { pluginId, slug, task } of await listEnabledPluginTasks(deps)) {
    if (pluginId !== exceptPluginId) taken.set(task.key, `已启用的插件 ${slug} `);
  }
  return taken;
}

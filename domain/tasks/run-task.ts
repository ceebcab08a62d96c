import { SYSTEM_ACTOR } from '../../lib/actor.js';
import { openConfig } from '../../plugins/runtime/config-open.js';
import { listEnabledPluginTasks } from '../../plugins/runtime/enabled-plugins.js';
import { invokePlugin } from '../../plugins/runtime/invoke.js';
import { redactJson } from '../../plugins/runtime/redact.js';
import type { DomainDeps } from '../deps.js';
import { findBuiltinTask } from './registry.js';
import { TaskFailure } from './task-failure.js';
import type { TaskRunContext, TaskSummary } from './types.js';

const DAY_MS = 86_400_000;
const shanghaiDate = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai', year: 'numeric', month: '2-digit', day: '2-digit' });

/** The calendar day (Asia/Shanghai) before `at`: the day a daily job covers. */
export function previousShanghaiDay(at: Date): string {
  return shanghaiDate.format(new Date(at.getTime() - DAY_MS));
}

async function runPluginTask(deps: DomainDeps, run: TaskRunContext): Promise<TaskSummary> {
  const found = (await listEnabledPluginTasks(deps)).find((t) => t.task.key === run.taskKey);
  if (!found) throw new TaskFailure(`任务 ${run.taskKey} 所属的插件未启用或已卸载，本次未运行`, false);
  const { task, pluginId, domain } = found;
  const result = await invokePlugin(deps, {
    domain,
    pluginId,
    action: task.handle,
    payload: {
      task_key: run.taskKey,
      task_run_id: run.taskRunId,
      trigger: run.trigger,
      slot_at: run.slotAt?.toISOString() ?? null,
      date: previousShanghaiDay(run.slotAt ?? new Date()),
    },
    actor: SYSTEM_ACTOR,
    timeoutMs: task.timeout * 1000,
  });
  if (!result.success) {
    // The message is the plugin's Chinese message (normalised by invokePlugin); raw detail is in the runtime log.
    const permanent = result.data['error_kind'] === 'permanent';
    throw new TaskFailure(result.message, !permanent);
  }
  const plugin = await deps.db.models.Plugin.findByPk(pluginId);
  const secrets = plugin ? openConfig(plugin.manifest.config, { config: plugin.config, secrets: plugin.secrets }, deps.secretBox).secretValues : [];
  const summary = result.data['summary'];
  return redactJson(summary === undefined || summary === null ? [] : summary, secrets);
}

/**
 * Runs one task's handler: a built-in handler from the registry, or the `handle` action of an
 * enabled plugin through `invokePlugin` (runtime log, timeout, redaction). Answers the summary
 * to store: for plugins only `data.summary`, redacted, never the rest of the plugin's data.
 */
export async function runTask(deps: DomainDeps, run: TaskRunContext): Promise<TaskSummary> {
  const builtin = findBuiltinTask(run.taskKey);
  if (builtin) return builtin.handler(deps, run);
  return runPluginTask(deps, run);
}

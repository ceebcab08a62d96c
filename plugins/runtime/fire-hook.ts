import { randomUUID } from 'node:crypto';
import type { PluginRunStatus } from '../../db/models/plugin-runtime-log.js';
import type { RuntimeDeps } from './deps.js';
import { openConfig } from './config-open.js';
import { type EnabledHookListener, enabledHookListeners } from './enabled-plugins.js';
import { redactSummary } from './redact.js';
import { isCustomHookName } from './schedule-hooks-check.js';

/** What firing a hook did; `entries` are the listeners' array items (first 100), for custom hooks. */
export type HookFireSummary = { hook: string; listeners: number; failed: number; warnings: number; entries: unknown[] };

const MAX_ENTRIES = 100;
const TIMEOUT = Symbol('timeout');

type Outcome = { status: PluginRunStatus; message: string; result: unknown; error: unknown; warning: boolean };

async function callWithTimeout(listener: EnabledHookListener, hook: string, context: Record<string, unknown>, ms: number): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMEOUT), ms);
  });
  try {
    // A listener that ignores the timeout keeps running in the background; its answer is dropped.
    const result = await Promise.race([listener.call(hook, context), timeout]);
    if (result === TIMEOUT) return { status: 'timeout', message: '钩子监听器执行超时', result: null, error: null, warning: true };
    if (!Array.isArray(result)) return { status: 'success', message: '钩子监听器的返回值不是数组，已忽略', result, error: null, warning: true };
    return { status: 'success', message: '钩子监听器执行完成', result, error: null, warning: false };
  } catch (error) {
    return { status: 'failure', message: '钩子监听器执行失败', result: null, error, warning: true };
  } finally {
    clearTimeout(timer);
  }
}

function secretValuesOf(deps: RuntimeDeps, listener: EnabledHookListener): string[] {
  const { plugin } = listener;
  try {
    return openConfig(plugin.manifest.config, { config: plugin.config, secrets: plugin.secrets }, deps.secretBox).secretValues;
  } catch {
    return [];
  }
}

async function record(deps: RuntimeDeps, listener: EnabledHookListener, hook: string, context: unknown, outcome: Outcome, durationMs: number) {
  const { plugin } = listener;
  const secrets = secretValuesOf(deps, listener);
  const traceId = randomUUID();
  if (outcome.warning) {
    const detail = outcome.error ? redactSummary({ error: outcome.error }, secrets) : '';
    deps.logger.warn({ plugin: plugin.slug, hook, listener: listener.listener, status: outcome.status, traceId, detail }, `schedule hook listener: ${outcome.message}`);
  }
  try {
    await deps.db.models.PluginRuntimeLog.create({
      domain: plugin.domain,
      plugin_id: plugin.id,
      plugin_slug: plugin.slug,
      binding_id: null,
      actor_type: 'system',
      actor_id: null,
      action: `hook:${hook}`.slice(0, 128),
      status: outcome.status,
      duration_ms: durationMs,
      message: outcome.message,
      trace_id: traceId,
      request_summary: redactSummary({ hook, listener: listener.listener, context }, secrets),
      response_summary: outcome.status === 'success' ? redactSummary(outcome.result, secrets) : '',
      error_detail: outcome.error ? redactSummary({ error: outcome.error }, secrets) : '',
    });
  } catch (error) {
    deps.logger.error({ err: error, plugin: plugin.slug, hook }, 'hook runtime log not written');
  }
}

/**
 * Calls every listener that enabled plugins declared for `hook`, one after another in plugin id
 * and declaration order, each with its own copy of the context and a time limit. A listener
 * that throws, times out or answers a non-array writes a warning (logger and a plugin runtime
 * log row, action `hook:<name>`) and the next listener runs: firing a hook never throws.
 */
export async function fireScheduleHook(deps: RuntimeDeps, hook: string, context: Record<string, unknown>): Promise<HookFireSummary> {
  const summary: HookFireSummary = { hook, listeners: 0, failed: 0, warnings: 0, entries: [] };
  let listeners: EnabledHookListener[];
  try {
    listeners = await enabledHookListeners(deps, hook);
  } catch (error) {
    deps.logger.warn({ err: error, hook }, 'schedule hook listeners not resolved');
    return { ...summary, failed: 1, warnings: 1 };
  }
  for (const listener of listeners) {
    summary.listeners += 1;
    const ownContext = structuredClone({ ...context, hook });
    const started = performance.now();
    const outcome = await callWithTimeout(listener, hook, ownContext, deps.config.schedules.hookTimeoutMs);
    await record(deps, listener, hook, ownContext, outcome, Math.max(0, Math.round(performance.now() - started)));
    if (outcome.status !== 'success') summary.failed += 1;
    if (outcome.warning) summary.warnings += 1;
    if (Array.isArray(outcome.result)) summary.entries.push(...outcome.result.slice(0, MAX_ENTRIES - summary.entries.length));
  }
  return summary;
}

/**
 * A plugin fires a custom hook `plugins.<its slug>.<action>` (through `context.hooks.fire`);
 * listeners of every enabled plugin declared under that exact name run as for schedule hooks.
 * A plugin may fire only its own namespace, so it cannot impersonate another plugin.
 */
export async function fireCustomHook(deps: RuntimeDeps, sourceSlug: string, name: string, payload: Record<string, unknown> = {}): Promise<HookFireSummary> {
  if (!isCustomHookName(name) || !name.startsWith(`plugins.${sourceSlug}.`)) {
    throw new Error(`自定义钩子名称必须是 plugins.${sourceSlug}.<action>`);
  }
  return fireScheduleHook(deps, name, { ...payload, source_plugin: sourceSlug, fired_at: new Date().toISOString() });
}

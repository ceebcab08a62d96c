import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { PluginRunStatus } from '../../db/models/plugin-runtime-log.js';
import type { RuntimeDeps } from './deps.js';
import type { Actor, PluginDomain, PluginExecuteResult } from './contract.js';
import { openConfig } from './config-open.js';
import { loadPluginEntry } from './entry.js';
import { fireCustomHook } from './fire-hook.js';
import { normaliseResult } from './normalise-result.js';
import { pluginsRoot } from './plugins-root.js';
import { redactSummary } from './redact.js';
import { type PluginSelector, resolvePluginTarget } from './resolve-target.js';
import { statement } from '../../db/sql.js';
import { label, pluginInvocations } from '../../lib/metrics.js';
import { currentCancellation, throwIfCancelled, unlessCancelled, WorkCancelledError } from '../../lib/cancellation.js';

export const DEFAULT_INVOKE_TIMEOUT_MS = 15_000;

export type InvokePluginInput = PluginSelector & {
  domain: PluginDomain;
  action: string;
  payload?: Record<string, unknown>;
  actor: Actor;
  traceId?: string;
  timeoutMs?: number;
  /** Health checks run on installed or disabled plugins too; business calls need `enabled`. */
  allowNotEnabled?: boolean;
  /**
   * Configuration laid over the plugin's own for this call: a supplier's address, account and
   * decrypted key. Its secret values are redacted from the runtime log like the plugin's.
   */
  overrides?: { config: Record<string, unknown>; secretValues: string[] };
};

export type PluginInvocation = Omit<PluginExecuteResult, 'diagnostics'> & {
  status: PluginRunStatus;
  pluginId: number;
  logId: number | null;
};

type Outcome = { status: PluginRunStatus; result: Omit<PluginExecuteResult, 'diagnostics'>; detail: unknown };

const TIMEOUT = Symbol('timeout');

/**
 * Runs the plugin under a signal that aborts when `ms` pass or when the work calling it is
 * cancelled (lib/cancellation.ts: a worker stopping, a cancelled activity); a cancellation
 * rejects at once with `WorkCancelledError`, leaving the plugin to see its signal and stop.
 */
async function runWithTimeout<T>(run: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T | typeof TIMEOUT> {
  const controller = new AbortController();
  const cancellation = currentCancellation();
  const cancel = () => controller.abort(cancellation?.reason ?? new Error('cancelled'));
  if (cancellation?.aborted) cancel();
  else cancellation?.addEventListener('abort', cancel, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`plugin timeout after ${ms} ms`));
      resolve(TIMEOUT);
    }, ms);
  });
  try {
    return await unlessCancelled(Promise.race([run(controller.signal), timeout]));
  } finally {
    clearTimeout(timer);
    cancellation?.removeEventListener('abort', cancel);
  }
}

/**
 * Calls one plugin action and records it. The plugin is chosen by slug, id or binding, its
 * entry loaded, its configuration decrypted, and `execute` run under an AbortSignal timeout.
 * The answer is always `{success, action, message (Chinese), data}`: a throw, a timeout or a
 * malformed result becomes `success: false` with a Chinese message. Raw errors and
 * `diagnostics` go only to the runtime log, redacted (sensitive keys and every secret value).
 * Resolution failures (nothing bound, not enabled) throw 42200 before any call.
 */
const INSERT_RUNTIME_LOG = statement(
  `INSERT INTO plugin_runtime_logs (domain, plugin_id, plugin_slug, binding_id, actor_type, actor_id, action, status, duration_ms, message,
      trace_id, request_summary, response_summary, error_detail)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id`,
);

export async function invokePlugin(deps: RuntimeDeps, input: InvokePluginInput): Promise<PluginInvocation> {
  // Work already cancelled calls nothing (and logs nothing).
  throwIfCancelled();
  const { plugin, bindingId } = await resolvePluginTarget(deps, input.domain, input, input.allowNotEnabled ?? false);
  const traceId = input.traceId ?? randomUUID();
  const payload = input.payload ?? {};
  const started = performance.now();
  const manifest = plugin.manifest;
  let secretValues: string[] = [...(input.overrides?.secretValues ?? [])];
  let outcome: Outcome;
  // A call cut short because its work was cancelled: logged like any failure, then thrown on.
  let cancelled: WorkCancelledError | null = null;
  try {
    const opened = openConfig(manifest.config, { config: plugin.config, secrets: plugin.secrets }, deps.secretBox);
    secretValues = [...opened.secretValues, ...(input.overrides?.secretValues ?? [])];
    const config = input.overrides ? { ...opened.config, ...input.overrides.config } : opened.config;
    const entry = await loadPluginEntry(join(pluginsRoot(deps.config), plugin.domain, plugin.slug), manifest.info.entry, { reuse: true });
    if (!entry.ok) {
      outcome = { status: 'failure', result: { success: false, action: input.action, message: '插件加载失败，请检查插件文件', data: {} }, detail: { reason: entry.reason, error: entry.error } };
    } else {
      const module = entry.module;
      const raw = await runWithTimeout(
        (signal) =>
          module.execute({
            domain: plugin.domain,
            slug: plugin.slug,
            key: plugin.key,
            action: input.action,
            payload,
            config,
            context: {
              traceId,
              actor: input.actor,
              signal,
              urls: { publicBaseUrl: deps.config.publicBaseUrl },
              hooks: { fire: (name, hookPayload) => fireCustomHook(deps, plugin.slug, name, hookPayload) },
            },
          }),
        input.timeoutMs ?? DEFAULT_INVOKE_TIMEOUT_MS,
      );
      if (raw === TIMEOUT) {
        outcome = { status: 'timeout', result: { success: false, action: input.action, message: '插件响应超时，请稍后重试', data: {} }, detail: null };
      } else {
        const normalised = normaliseResult(input.action, raw);
        outcome = {
          status: normalised.result.success ? 'success' : 'failure',
          result: normalised.result,
          detail: normalised.diagnostics || normalised.problem ? { diagnostics: normalised.diagnostics, problem: normalised.problem } : null,
        };
      }
    }
  } catch (error) {
    if (error instanceof WorkCancelledError) {
      cancelled = error;
      outcome = { status: 'failure', result: { success: false, action: input.action, message: '插件调用已中止：所在工作已取消（如工作进程停止），将重试', data: {} }, detail: { cancelled: error.message } };
    } else {
      outcome = { status: 'failure', result: { success: false, action: input.action, message: '插件执行失败，请稍后重试', data: {} }, detail: { error } };
    }
  }
  const durationMs = Math.max(0, Math.round(performance.now() - started));
  pluginInvocations.inc({ plugin: label(plugin.slug), domain: label(plugin.domain), outcome: outcome.status });
  const errorDetail = outcome.detail ? redactSummary(outcome.detail, secretValues) : '';
  if (outcome.status !== 'success') {
    deps.logger.warn({ plugin: plugin.slug, domain: plugin.domain, action: input.action, status: outcome.status, traceId, detail: errorDetail }, 'plugin action failed');
  }
  let logId: number | null = null;
  try {
    // One plain INSERT (no model building): every payment notification and gateway call writes a row.
    const [log] = await deps.db.read<{ id: string }>(
      INSERT_RUNTIME_LOG,
      [
        plugin.domain,
        plugin.id,
        plugin.slug,
        bindingId,
        input.actor.type,
        input.actor.id,
        input.action.slice(0, 128),
        outcome.status,
        durationMs,
        outcome.result.message.slice(0, 255),
        traceId.slice(0, 64),
        redactSummary({ action: input.action, payload }, secretValues),
        redactSummary(outcome.result, secretValues),
        errorDetail,
      ],
    );
    logId = log ? Number(log.id) : null;
  } catch (error) {
    deps.logger.error({ err: error, plugin: plugin.slug, action: input.action }, 'plugin runtime log not written');
  }
  if (cancelled) throw cancelled;
  return { ...outcome.result, status: outcome.status, pluginId: plugin.id, logId };
}

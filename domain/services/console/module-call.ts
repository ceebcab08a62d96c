import { userActor } from '../../../lib/actor.js';
import { AppError, ErrorCode } from '../../../lib/errors.js';
import type { DomainDeps } from '../../deps.js';
import { recordServiceEvent } from '../service-events.js';
import { requireSupplierData } from '../../suppliers/upstream-result.js';
import { invokeServiceUpstream } from '../service-upstream.js';

/** The upstream's refusals that have a code of their own (plugin `error_code` → ours). */
const REFUSALS: Record<string, number> = {
  port_taken: ErrorCode.PORT_TAKEN,
  limit_reached: ErrorCode.CONSOLE_LIMIT_REACHED,
};

/**
 * A supplier failure as the client sees it: the upstream's known refusals (port taken, limit
 * reached) get their own codes with the plugin's Chinese message; others stay 40930/50300.
 */
export function mapModuleFailure(err: unknown): unknown {
  if (!(err instanceof AppError) || err.code !== ErrorCode.SUPPLIER_REFUSED) return err;
  const code = (err.data as { error_code?: unknown } | null)?.error_code;
  const mapped = typeof code === 'string' ? REFUSALS[code] : undefined;
  return mapped ? new AppError(mapped, err.message) : err;
}

/**
 * One custom module function on the service's host (`upstream.module_action`): its `result`
 * fields, or the mapped failure. Not written to the history: the caller writes one event per
 * client action (a link pushes several rules).
 */
export async function runModuleFunction(
  deps: DomainDeps,
  input: { serviceId: number; userId: number; fn: string; fields: Record<string, string | number> },
): Promise<{ result: Record<string, unknown>; logId: number | null }> {
  const invocation = await invokeServiceUpstream(deps, input.serviceId, {
    action: 'upstream.module_action',
    payload: { function: input.fn, fields: input.fields },
    actor: userActor(input.userId),
  });
  try {
    const data = requireSupplierData(invocation);
    const result = data['result'];
    return { result: result && typeof result === 'object' ? (result as Record<string, unknown>) : {}, logId: invocation.logId };
  } catch (err) {
    throw mapModuleFailure(err);
  }
}

/** A custom module page of the service's host (`upstream.module_page`): items and the page's own fields. */
export async function readModulePage(
  deps: DomainDeps,
  input: { serviceId: number; userId: number; page: string },
): Promise<{ items: Array<Record<string, unknown>>; meta: Record<string, unknown>; truncated: boolean }> {
  const invocation = await invokeServiceUpstream(deps, input.serviceId, {
    action: 'upstream.module_page',
    payload: { page: input.page },
    actor: userActor(input.userId),
  });
  const data = requireSupplierData(invocation);
  const items = Array.isArray(data['items']) ? (data['items'] as unknown[]).filter((i): i is Record<string, unknown> => !!i && typeof i === 'object') : [];
  const meta = data['meta'] && typeof data['meta'] === 'object' ? (data['meta'] as Record<string, unknown>) : {};
  return { items, meta, truncated: data['truncated'] === true };
}

/** A console action's row in the service history (never a password). */
export async function recordConsoleEvent(
  deps: DomainDeps,
  input: { serviceId: number; userId: number; stage: string; ok: boolean; message: string; detail?: Record<string, unknown> },
): Promise<void> {
  await recordServiceEvent(deps, {
    serviceId: input.serviceId,
    kind: 'console',
    stage: input.stage,
    status: input.ok ? 'succeeded' : 'failed',
    message: input.message,
    detail: input.detail ?? {},
    operator: { type: 'user', id: input.userId },
  });
}

/** Runs `work`; writes the failed event (the error's Chinese message) when it throws, then rethrows. */
export async function withFailureEvent<T>(
  deps: DomainDeps,
  event: { serviceId: number; userId: number; stage: string; detail?: Record<string, unknown> },
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AppError) await recordConsoleEvent(deps, { ...event, ok: false, message: err.message });
    throw err;
  }
}

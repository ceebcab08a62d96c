import { callSupplier } from '../../suppliers/supplier-call.js';
import type { DomainDeps } from '../../deps.js';

/** Room for a call that logs in, sends, logs in again and sends again (the plugin's own timeout is per request). */
export const STEP_INVOKE_TIMEOUT_MS = 45_000;

/**
 * One upstream step of a renewal or traffic purchase: the supplier's plugin called with the
 * workflow id as trace id; `data`, or an UpstreamStepError with the plugin's classification
 * (an answer without one counts as ambiguous).
 */
export function callUpstreamStep(deps: DomainDeps, supplierId: number, action: string, payload: Record<string, unknown>, traceId: string): Promise<Record<string, unknown>> {
  return callSupplier(deps, supplierId, action, payload, { traceId, timeoutMs: STEP_INVOKE_TIMEOUT_MS });
}

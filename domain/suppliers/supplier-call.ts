import type { DomainDeps } from '../deps.js';
import { invokeSupplierPlugin } from './supplier-plugin.js';

export type UpstreamErrorKind = 'transient' | 'permanent' | 'ambiguous';

/**
 * A supplier call that did not succeed, with the plugin's classification: `transient` (retry with
 * backoff), `permanent` (stop and ask an admin) or `ambiguous` (it may have happened: reconcile
 * before doing it again). The message is the plugin's Chinese text; raw upstream text stays in
 * the runtime log.
 */
export class UpstreamStepError extends Error {
  override name = 'UpstreamStepError';
  readonly kind: UpstreamErrorKind;
  readonly code: string;

  constructor(kind: UpstreamErrorKind, code: string, message: string) {
    super(message);
    this.kind = kind;
    this.code = code;
  }
}

const KINDS: readonly string[] = ['transient', 'permanent', 'ambiguous'];

/**
 * Calls the supplier's plugin and returns `data`, or throws UpstreamStepError. An answer without
 * a kind (the runtime's own timeout fired first) counts as ambiguous: the call may have reached
 * the upstream.
 */
export async function callSupplier(
  deps: DomainDeps,
  supplierId: number,
  action: string,
  payload: Record<string, unknown>,
  options: { traceId?: string; timeoutMs?: number } = {},
): Promise<Record<string, unknown>> {
  const result = await invokeSupplierPlugin(deps, supplierId, { action, payload, ...options });
  if (result.success) return result.data;
  const kind = typeof result.data['error_kind'] === 'string' && KINDS.includes(result.data['error_kind']) ? (result.data['error_kind'] as UpstreamErrorKind) : 'ambiguous';
  const code = typeof result.data['error_code'] === 'string' ? result.data['error_code'] : result.status;
  throw new UpstreamStepError(kind, code, result.message);
}

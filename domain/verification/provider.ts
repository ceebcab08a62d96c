import { AppError, ErrorCode } from '../../lib/errors.js';
import { invokePlugin, type PluginInvocation } from '../../plugins/runtime/invoke.js';
import { SYSTEM_ACTOR } from '../../lib/actor.js';
import type { DomainDeps } from '../deps.js';

/** One provider call may take this long from a request; the workflow's activities allow the same. */
const PROVIDER_TIMEOUT_MS = 10_000;

export type ProviderResult = { status: 1 | 2 | 3; reasonCode: string | null; reasonMessage: string | null };

/** Calls the bound verification plugin (default scene). No plugin bound or enabled: 50300, nothing else happens. */
export async function callVerificationPlugin(
  deps: DomainDeps,
  action: string,
  payload: Record<string, unknown>,
  traceId?: string,
  /** Values the runtime log must show redacted (the clear name and ID number of `verification.init`). */
  secretValues: string[] = [],
): Promise<PluginInvocation> {
  try {
    return await invokePlugin(deps, {
      domain: 'verification',
      action,
      payload,
      actor: SYSTEM_ACTOR,
      timeoutMs: PROVIDER_TIMEOUT_MS,
      ...(traceId ? { traceId } : {}),
      ...(secretValues.length > 0 ? { overrides: { config: {}, secretValues } } : {}),
    });
  } catch (err) {
    if (err instanceof AppError) throw new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '实名认证服务未配置，请联系客服');
    throw err;
  }
}

/** `verification.query` → the provider's state of a certify id, or null when it could not be asked (down, refused). */
export async function queryProvider(deps: DomainDeps, certifyId: string): Promise<ProviderResult | null> {
  const result = await callVerificationPlugin(deps, 'verification.query', { certify_id: certifyId });
  if (!result.success) return null;
  const status = result.data.status;
  if (result.data.certify_id !== certifyId || (status !== 1 && status !== 2 && status !== 3)) return null;
  const reasonCode = typeof result.data.reason_code === 'string' ? result.data.reason_code.slice(0, 32) : null;
  const reasonMessage = typeof result.data.reason_message === 'string' ? result.data.reason_message.slice(0, 128) : null;
  return { status, reasonCode, reasonMessage };
}

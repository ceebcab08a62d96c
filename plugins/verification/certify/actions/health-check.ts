import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import { callProvider, failureDiagnostics, failureMessage } from '../client.js';
import type { CertifyConfig } from '../config.js';
import { fail, ok } from '../result.js';

const ACTION = 'health_check';

/**
 * Queries a certify id that cannot exist: "not found" proves connectivity and valid
 * credentials (a bad signature answers 401). → data { reachable, authenticated, latency_ms }.
 */
export async function healthCheck(input: PluginExecuteInput, config: CertifyConfig): Promise<PluginExecuteResult> {
  const started = Date.now();
  const path = '/certify/query';
  const outcome = await callProvider(config, path, { certify_id: '__health_check__' }, input.context.signal);
  const latency = Date.now() - started;
  if (outcome.ok || outcome.kind === 'not_found') {
    return ok(ACTION, '实名认证服务连接正常', { reachable: true, authenticated: true, latency_ms: latency });
  }
  const reachable = outcome.kind !== 'network' && outcome.kind !== 'timeout';
  return fail(ACTION, failureMessage(outcome.kind), failureDiagnostics(outcome, path), {
    reachable,
    authenticated: outcome.kind !== 'auth' && reachable,
    latency_ms: latency,
  });
}

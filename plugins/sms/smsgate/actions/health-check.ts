import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import { callGateway, failureMessage } from '../client.js';
import type { SmsConfig } from '../config.js';
import { fail, ok } from '../result.js';

const ACTION = 'health_check';

/** Signed account query → data { reachable, authenticated, latency_ms, scenes }. */
export async function healthCheck(input: PluginExecuteInput, config: SmsConfig): Promise<PluginExecuteResult> {
  const started = Date.now();
  const outcome = await callGateway(config, '/v1/account/query', {}, input.context.signal);
  const latency = Date.now() - started;
  const scenes = Object.keys(config.templates).sort();
  if (outcome.ok) return ok(ACTION, '短信服务连接正常', { reachable: true, authenticated: true, latency_ms: latency, scenes });
  const reachable = outcome.kind !== 'network' && outcome.kind !== 'timeout';
  return fail(
    ACTION,
    failureMessage(outcome.kind),
    { kind: outcome.kind, http_status: outcome.httpStatus, provider_code: outcome.code, raw: outcome.raw },
    { reachable, authenticated: reachable && outcome.kind !== 'auth', latency_ms: latency, scenes },
  );
}

import { randomBytes } from 'node:crypto';
import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import { answerFailure } from '../answer-failure.js';
import type { QrpayConfig } from '../config.js';
import { QRPAY_GATEWAY_METHODS } from '../constants.js';
import { callGateway } from '../gateway-client.js';
import { fail, prefixed, succeed } from '../result.js';

const PREFIX = '支付网关连通性检查失败';

/**
 * `health_check`: queries a trade that cannot exist. A signed "trade does not exist" answer
 * proves the gateway is reachable, accepts our signature and app_id, and signs with the
 * configured public key. Data `{ healthy: true, latency_ms }`.
 */
export async function healthCheck(input: PluginExecuteInput, config: QrpayConfig): Promise<PluginExecuteResult> {
  const { action } = input;
  const probe = `HEALTHCHECK${Date.now()}${randomBytes(6).toString('hex')}`;
  const started = performance.now();
  const outcome = await callGateway(config, { method: QRPAY_GATEWAY_METHODS.query, bizContent: { out_trade_no: probe } }, input.context.signal);
  const latencyMs = Math.round(performance.now() - started);
  if (!outcome.ok) return fail(action, prefixed(PREFIX, outcome.failure), { healthy: false });
  const { answer } = outcome;
  const notFound = answer.code === '40004' && answer.subCode === 'ACQ.TRADE_NOT_EXIST';
  if (!notFound && answer.code !== '10000') return fail(action, answerFailure(PREFIX, answer), { healthy: false });
  return succeed(action, '支付网关连接正常', { healthy: true, latency_ms: latencyMs }, answer.diagnostics);
}

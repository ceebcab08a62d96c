import type { PluginExecuteInput, PluginExecuteResult } from '../../runtime/contract.js';
import { certifyUrl } from './actions/certify-url.js';
import { healthCheck } from './actions/health-check.js';
import { initCertify } from './actions/init.js';
import { queryCertify } from './actions/query.js';
import { verifyCallback } from './actions/verify-callback.js';
import { CONFIG_INVALID_MESSAGE, parseConfig, type CertifyConfig } from './config.js';
import { fail } from './result.js';

export { renderQrSvg } from './qr.js';

type Handler = (input: PluginExecuteInput, config: CertifyConfig) => Promise<PluginExecuteResult>;

const ACTIONS: Record<string, Handler> = {
  'verification.init': initCertify,
  'verification.certify_url': certifyUrl,
  'verification.query': queryCertify,
  'verification.verify_callback': verifyCallback,
  health_check: healthCheck,
};

/**
 * Real-name verification through the certify provider. Name and ID number go to the provider
 * only; they never appear in `data`, `message` or `diagnostics`.
 */
export async function execute(input: PluginExecuteInput): Promise<PluginExecuteResult> {
  const handler = Object.hasOwn(ACTIONS, input.action) ? ACTIONS[input.action] : undefined;
  if (!handler) return fail(input.action, '实名认证插件不支持该操作');
  const config = parseConfig(input.config);
  if (!config) return fail(input.action, CONFIG_INVALID_MESSAGE);
  try {
    return await handler(input, config);
  } catch (err) {
    return fail(input.action, '实名认证处理失败，请稍后重试', { error: err instanceof Error ? err.name : 'unknown' });
  }
}

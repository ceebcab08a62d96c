import type { PluginExecuteInput, PluginExecuteResult } from '../../runtime/contract.js';
import { generateCaptcha } from './actions/generate.js';
import { healthCheck } from './actions/health-check.js';
import { verifyCaptcha } from './actions/verify.js';
import { CONFIG_INVALID_MESSAGE, parseConfig, type CaptchaConfig } from './config.js';
import { fail } from './result.js';

type Handler = (input: PluginExecuteInput, config: CaptchaConfig) => Promise<PluginExecuteResult>;

const ACTIONS: Record<string, Handler> = {
  'captcha.generate': generateCaptcha,
  'captcha.verify': verifyCaptcha,
  health_check: healthCheck,
};

/**
 * Image captcha generated locally with svg-captcha; verification is stateless (signed id).
 * The platform serves `svg` as an image URL and enforces single use by `nonce`.
 */
export async function execute(input: PluginExecuteInput): Promise<PluginExecuteResult> {
  const handler = Object.hasOwn(ACTIONS, input.action) ? ACTIONS[input.action] : undefined;
  if (!handler) return fail(input.action, '图形验证码插件不支持该操作');
  const config = parseConfig(input.config);
  if (!config) return fail(input.action, CONFIG_INVALID_MESSAGE);
  try {
    return await handler(input, config);
  } catch (err) {
    return fail(input.action, '验证码处理失败，请稍后重试', { error: err instanceof Error ? err.name : 'unknown' });
  }
}

import type { PluginExecuteInput, PluginExecuteResult } from '../../runtime/contract.js';
import { healthCheck } from './actions/health-check.js';
import { sendSms } from './actions/send.js';
import { CONFIG_INVALID_MESSAGE, parseConfig, type SmsConfig } from './config.js';
import { fail } from './result.js';

type Handler = (input: PluginExecuteInput, config: SmsConfig) => Promise<PluginExecuteResult>;

const ACTIONS: Record<string, Handler> = {
  'sms.send': sendSms,
  health_check: healthCheck,
};

/** SMS through the smsgate HTTP gateway (scene → template code from config). */
export async function execute(input: PluginExecuteInput): Promise<PluginExecuteResult> {
  const handler = Object.hasOwn(ACTIONS, input.action) ? ACTIONS[input.action] : undefined;
  if (!handler) return fail(input.action, '短信插件不支持该操作');
  const config = parseConfig(input.config);
  if (!config) return fail(input.action, CONFIG_INVALID_MESSAGE);
  try {
    return await handler(input, config);
  } catch (err) {
    return fail(input.action, '短信发送失败，请稍后重试', { error: err instanceof Error ? err.name : 'unknown' });
  }
}

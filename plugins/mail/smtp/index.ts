import type { PluginExecuteInput, PluginExecuteResult } from '../../runtime/contract.js';
import { healthCheck } from './actions/health-check.js';
import { sendMail } from './actions/send.js';
import { testSend } from './actions/test-send.js';
import { CONFIG_INVALID_MESSAGE, parseConfig, type MailConfig } from './config.js';
import { fail } from './result.js';

type Handler = (input: PluginExecuteInput, config: MailConfig) => Promise<PluginExecuteResult>;

const ACTIONS: Record<string, Handler> = {
  'mail.send': sendMail,
  'mail.test_send': testSend,
  health_check: healthCheck,
};

/**
 * SMTP mail with several accounts (`accounts` is a json field whose `password` keys the
 * runtime keeps encrypted by index). Strategy first_available or round_robin, with fallback.
 */
export async function execute(input: PluginExecuteInput): Promise<PluginExecuteResult> {
  const handler = Object.hasOwn(ACTIONS, input.action) ? ACTIONS[input.action] : undefined;
  if (!handler) return fail(input.action, '邮件插件不支持该操作');
  const config = parseConfig(input.config);
  if (!config) return fail(input.action, CONFIG_INVALID_MESSAGE);
  try {
    return await handler(input, config);
  } catch (err) {
    return fail(input.action, '邮件发送失败，请稍后重试', { error: err instanceof Error ? err.name : 'unknown' });
  }
}

import { z } from 'zod';
import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import type { MailConfig } from '../config.js';
import { deliver } from '../deliver.js';
import { fail } from '../result.js';
import { attemptOrder } from '../strategy.js';

const ACTION = 'mail.send';

const payloadSchema = z.object({
  to: z.union([z.email(), z.array(z.email()).min(1).max(50)]),
  subject: z.string().trim().min(1).max(200),
  text: z.string().min(1).max(200_000),
  html: z.string().max(500_000).optional(),
});

const FIELD_MESSAGES: Record<string, string> = { to: '收件地址不正确', subject: '邮件主题不能为空', text: '邮件正文不能为空', html: '邮件 HTML 内容过长' };

/** payload { to (address or list), subject, text, html? } → data { message_id, account }. */
export async function sendMail(input: PluginExecuteInput, config: MailConfig): Promise<PluginExecuteResult> {
  const parsed = payloadSchema.safeParse(input.payload);
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? '');
    return fail(ACTION, FIELD_MESSAGES[field] ?? '邮件参数不正确', { invalid_field: field });
  }
  const { to, subject, text, html } = parsed.data;
  const order = attemptOrder(input.key, config.accounts, config.strategy);
  return deliver(ACTION, order, { to: Array.isArray(to) ? to : [to], subject, text, html }, config, input.context.signal);
}

import { z } from 'zod';
import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import type { MailConfig } from '../config.js';
import { deliver } from '../deliver.js';
import { fail } from '../result.js';
import { attemptOrder, type IndexedAccount } from '../strategy.js';

const ACTION = 'mail.test_send';

const payloadSchema = z.object({
  to: z.email(),
  /** Index in `accounts`: test exactly that account (no fallback); omitted: the normal strategy. */
  account: z.coerce.number().int().min(0).optional(),
});

/** payload { to, account? } → data { message_id, account }. */
export async function testSend(input: PluginExecuteInput, config: MailConfig): Promise<PluginExecuteResult> {
  const parsed = payloadSchema.safeParse(input.payload);
  if (!parsed.success) return fail(ACTION, String(parsed.error.issues[0]?.path[0]) === 'to' ? '收件地址不正确' : '账户序号不正确');
  const { to, account } = parsed.data;
  let order: IndexedAccount[];
  if (account === undefined) {
    order = attemptOrder(input.key, config.accounts, config.strategy);
  } else {
    const chosen = config.accounts[account];
    if (!chosen) return fail(ACTION, '指定的发信账户不存在');
    order = [{ index: account, account: chosen }];
  }
  const mail = {
    to: [to],
    subject: '邮件配置测试',
    text: `这是一封测试邮件，用于确认发信账户配置正确。\n发送时间：${new Date().toISOString()}`,
  };
  return deliver(ACTION, order, mail, config, input.context.signal);
}

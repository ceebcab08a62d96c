import type { PluginExecuteResult } from '../../runtime/contract.js';
import type { MailConfig } from './config.js';
import { fail, ok } from './result.js';
import type { IndexedAccount } from './strategy.js';
import { attemptMessage, sendWith, type OutgoingMail } from './transport.js';

type Attempt = { account: string; index: number; code: string; response_code: number | null; raw: string };

/**
 * Tries the accounts in order until one accepts the message → data { message_id, account }.
 * Diagnostics list the failed attempts (account name, error code, server text; never passwords).
 */
export async function deliver(action: string, accounts: IndexedAccount[], mail: OutgoingMail, config: MailConfig, signal: AbortSignal): Promise<PluginExecuteResult> {
  const attempts: Attempt[] = [];
  for (const { index, account } of accounts) {
    if (signal.aborted) break;
    const outcome = await sendWith(account, mail, config.timeoutMs, signal);
    if (outcome.ok) {
      const diagnostics = attempts.length > 0 ? { failed_attempts: attempts } : undefined;
      return ok(action, attempts.length > 0 ? '邮件已通过备用账户发送' : '邮件已发送', { message_id: outcome.messageId, account: account.name }, diagnostics);
    }
    attempts.push({ account: account.name, index, code: outcome.code, response_code: outcome.responseCode, raw: outcome.raw });
  }
  const last = attempts[attempts.length - 1];
  if (accounts.length === 1 && last) return fail(action, `邮件发送失败：${attemptMessage(last.code)}`, { failed_attempts: attempts });
  return fail(action, '所有发信账户均发送失败，请检查邮件配置', { failed_attempts: attempts });
}

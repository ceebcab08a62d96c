import type { PluginExecuteInput, PluginExecuteResult } from '../../../runtime/contract.js';
import type { MailConfig } from '../config.js';
import { fail, ok } from '../result.js';
import { attemptMessage, verifyAccount } from '../transport.js';

const ACTION = 'health_check';

/** SMTP connect + AUTH per account → data { accounts: [{ index, name, ok, message }], healthy, total }. */
export async function healthCheck(input: PluginExecuteInput, config: MailConfig): Promise<PluginExecuteResult> {
  const outcomes = await Promise.all(config.accounts.map((account) => verifyAccount(account, config.timeoutMs, input.context.signal)));
  const accounts = outcomes.map((o, index) => ({
    index,
    name: config.accounts[index]?.name ?? '',
    ok: o.ok,
    message: o.ok ? '连接正常' : attemptMessage(o.code),
  }));
  const healthy = accounts.filter((a) => a.ok).length;
  const data = { accounts, healthy, total: accounts.length };
  const diagnostics = {
    failures: outcomes.flatMap((o, index) => (o.ok ? [] : [{ index, code: o.code, response_code: o.responseCode, raw: o.raw }])),
  };
  if (healthy === accounts.length) return ok(ACTION, `全部 ${accounts.length} 个发信账户连接正常`, data);
  return fail(ACTION, `${accounts.length - healthy} 个发信账户连接失败`, diagnostics, data);
}

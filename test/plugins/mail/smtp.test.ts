import { SYSTEM_ACTOR } from '../../../lib/actor.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execute } from '../../../plugins/mail/smtp/index.js';
import type { PluginExecuteInput } from '../../../plugins/runtime/contract.js';
import { startMailSandbox, type MailSandbox } from '../../../sandbox/mail/server.js';

let sandbox: MailSandbox;

beforeAll(async () => {
  sandbox = await startMailSandbox({ port: 0, users: { first: 'pw-1', second: 'pw-2' } });
});
afterAll(async () => {
  await sandbox.stop();
});
beforeEach(() => {
  sandbox.control.reset();
});

function account(name: string, user: string, password: string) {
  return { name, host: sandbox.smtpHost, port: sandbox.smtpPort, secure: false, user, password, from: `示例云 <${user}@example.com>` };
}

let keySeq = 0;
function input(action: string, payload: Record<string, unknown>, config: Record<string, unknown> = {}, key = 'smtp'): PluginExecuteInput {
  return {
    domain: 'mail',
    slug: 'smtp',
    key,
    action,
    payload,
    config: { accounts: [account('主账户', 'first', 'pw-1'), account('备用账户', 'second', 'pw-2')], strategy: 'first_available', timeout_ms: 5000, ...config },
    context: { traceId: 'trace-mail', actor: SYSTEM_ACTOR, signal: AbortSignal.timeout(5000), urls: { publicBaseUrl: 'http://127.0.0.1:1' } },
  };
}

const mail = { to: 'user@example.com', subject: '续费提醒', text: '您的服务将于 3 天后到期。' };

describe('the multi-account SMTP mail plugin', () => {
  it('sends through the first account', async () => {
    const result = await execute(input('mail.send', { ...mail, html: '<p>到期提醒</p>' }));
    expect(result).toMatchObject({ success: true, message: '邮件已发送', data: { account: '主账户' } });
    expect(result.data.message_id).toMatch(/^<.+@example\.com>$/);
    expect(sandbox.control.messages()).toEqual([
      expect.objectContaining({ to: ['user@example.com'], subject: '续费提醒', text: '您的服务将于 3 天后到期。', html: '<p>到期提醒</p>', account_user: 'first', message_id: result.data.message_id }),
    ]);
  });

  it('falls back to the second account when the first is refused at AUTH', async () => {
    sandbox.control.rejectAuth(['first']);
    const result = await execute(input('mail.send', mail));
    expect(result).toMatchObject({ success: true, message: '邮件已通过备用账户发送', data: { account: '备用账户' } });
    expect(sandbox.control.messages().map((m) => m.account_user)).toEqual(['second']);
    const failed = result.diagnostics?.failed_attempts as Array<Record<string, unknown>>;
    expect(failed).toEqual([expect.objectContaining({ account: '主账户', code: 'EAUTH' })]);
    expect(JSON.stringify(result)).not.toContain('pw-1');
  });

  it('falls back when a message is rejected and fails in Chinese when every account fails', async () => {
    sandbox.control.rejectNextMessage(1);
    expect((await execute(input('mail.send', mail))).data.account).toBe('备用账户');
    sandbox.control.rejectAuth();
    const result = await execute(input('mail.send', mail));
    expect(result).toMatchObject({ success: false, message: '所有发信账户均发送失败，请检查邮件配置', data: {} });
    expect(result.message).not.toMatch(/[A-Za-z]{4,}/);
    expect(JSON.stringify(result.diagnostics)).toContain('Invalid username or password');
  });

  it('rotates accounts with round robin', async () => {
    keySeq += 1;
    const key = `smtp-rr-${keySeq}`;
    const used: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      const result = await execute(input('mail.send', mail, { strategy: 'round_robin' }, key));
      used.push(result.data.account);
    }
    expect(used).toEqual(['主账户', '备用账户', '主账户', '备用账户']);
    expect(sandbox.control.messages().map((m) => m.account_user)).toEqual(['first', 'second', 'first', 'second']);
  });

  it('test-sends through exactly the chosen account without fallback', async () => {
    const chosen = await execute(input('mail.test_send', { to: 'admin@example.com', account: 1 }));
    expect(chosen).toMatchObject({ success: true, data: { account: '备用账户' } });
    expect(sandbox.control.messages()[0]).toMatchObject({ subject: '邮件配置测试', account_user: 'second' });
    sandbox.control.rejectAuth(['second']);
    const refused = await execute(input('mail.test_send', { to: 'admin@example.com', account: 1 }));
    expect(refused).toMatchObject({ success: false, message: '邮件发送失败：邮箱账户认证失败' });
    expect((await execute(input('mail.test_send', { to: 'admin@example.com', account: 5 }))).message).toBe('指定的发信账户不存在');
  });

  it('checks every account in health_check', async () => {
    expect(await execute(input('health_check', {}))).toMatchObject({ success: true, data: { healthy: 2, total: 2 } });
    const broken = await execute(input('health_check', {}, { accounts: JSON.stringify([account('主账户', 'first', 'pw-1'), account('坏账户', 'first', 'bad')]) }));
    expect(broken).toMatchObject({
      success: false,
      message: '1 个发信账户连接失败',
      data: { healthy: 1, accounts: [{ name: '主账户', ok: true }, { name: '坏账户', ok: false, message: '邮箱账户认证失败' }] },
    });
  });

  it('refuses bad payloads and configurations in Chinese', async () => {
    expect((await execute(input('mail.send', { ...mail, to: 'not-an-address' }))).message).toBe('收件地址不正确');
    expect((await execute(input('mail.send', mail, { accounts: [] }))).message).toMatch(/^邮件插件配置不正确/);
    expect(sandbox.control.messages()).toHaveLength(0);
  });
});

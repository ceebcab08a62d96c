import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMailSandbox, type MailSandbox } from '../../sandbox/mail/server.js';

let sandbox: MailSandbox;

beforeAll(async () => {
  sandbox = await startMailSandbox({ port: 0, smtpPort: 0, users: { alice: 'pw-a', bob: 'pw-b' } });
});
afterAll(async () => {
  await sandbox.stop();
});
beforeEach(() => {
  sandbox.control.reset();
});

function send(user: string, pass: string, mail: { subject: string; text: string; html?: string }) {
  const transporter = createTransport({ host: sandbox.smtpHost, port: sandbox.smtpPort, secure: false, auth: { user, pass } });
  return transporter.sendMail({ from: '示例 <noreply@example.com>', to: ['a@example.com', 'b@example.com'], ...mail }).finally(() => transporter.close());
}

describe('the mail sandbox', () => {
  it('stores authenticated messages with decoded Chinese subject, text and html', async () => {
    const longLine = `${'续费提醒：'.repeat(30)}=end`;
    await send('alice', 'pw-a', { subject: '您的账单已生成 – 请及时支付', text: `你好\n${longLine}`, html: '<p>你好</p>' });
    const res = await fetch(`${sandbox.baseUrl}/messages`);
    const { messages } = (await res.json()) as { messages: Array<Record<string, unknown>> };
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      from: '示例 <noreply@example.com>',
      to: ['a@example.com', 'b@example.com'],
      subject: '您的账单已生成 – 请及时支付',
      text: `你好\n${longLine}`,
      html: '<p>你好</p>',
      account_user: 'alice',
    });
    expect(typeof messages[0]?.received_at).toBe('string');
    await fetch(`${sandbox.baseUrl}/messages`, { method: 'DELETE' });
    expect(sandbox.control.messages()).toHaveLength(0);
  });

  it('refuses wrong passwords and users whose auth is switched off over HTTP', async () => {
    await expect(send('alice', 'wrong', { subject: 's', text: 't' })).rejects.toMatchObject({ code: 'EAUTH' });
    await fetch(`${sandbox.baseUrl}/__control/reject-auth`, { method: 'POST', body: JSON.stringify({ users: ['bob'] }) });
    await expect(send('bob', 'pw-b', { subject: 's', text: 't' })).rejects.toMatchObject({ code: 'EAUTH' });
    await send('alice', 'pw-a', { subject: 's', text: 't' });
    expect(sandbox.control.messages().map((m) => m.account_user)).toEqual(['alice']);
    expect(sandbox.control.counters()).toMatchObject({ auth_failed: 2, auth_ok: 1 });
  });

  it('rejects the next message when asked, then accepts again', async () => {
    await fetch(`${sandbox.baseUrl}/__control/reject-next-message`, { method: 'POST', body: '{}' });
    await expect(send('alice', 'pw-a', { subject: 'one', text: 't' })).rejects.toMatchObject({ responseCode: 554 });
    await send('alice', 'pw-a', { subject: 'two', text: 't' });
    expect(sandbox.control.messages().map((m) => m.subject)).toEqual(['two']);
  });
});

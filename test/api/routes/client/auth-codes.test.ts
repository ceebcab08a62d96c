import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPluginBinding } from '../../../../domain/plugins/plugin-bindings.js';
import { installPlugin } from '../../../../domain/plugins/plugin-install.js';
import { enablePlugin, updatePluginConfig } from '../../../../domain/plugins/plugin-lifecycle.js';
import { issueToken } from '../../../../plugins/captcha/image_captcha/token.js';
import type { MailSandbox } from '../../../../sandbox/mail/server.js';
import type { SmsSandbox } from '../../../../sandbox/sms/server.js';
import { expectError } from '../../../helpers/http.js';
import { settles } from '../../../helpers/identity.js';
import { registerKnownSecret } from '../../../helpers/known-secrets.js';
import { type Notifier, startNotifier } from '../../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { captureLogs } from '../../../helpers/vnc.js';

const CAPTCHA_KEY = 'identity-test-captcha-signing-key';
let platform: TestPlatform;
let mail: MailSandbox;
let sms: SmsSandbox;
let notifier: Notifier;
let logs: string[];

beforeAll(async () => {
  registerKnownSecret(CAPTCHA_KEY);
  // Generous IP limit: every request of this file comes from 127.0.0.1; the IP limit has its own test.
  platform = await startTestPlatform({ env: { AUTH_CODE_RESEND_SECONDS: '0', AUTH_CODE_MAX_PER_IP_HOUR: '1000', AUTH_CODE_MAX_PER_ADDRESS_HOUR: '4' } });
  platform.deps.config.publicBaseUrl = platform.baseUrl;
  notifier = await startNotifier(platform);
  ({ mail, sms } = notifier);
  const captcha = await installPlugin(platform.deps, 'captcha', 'image_captcha');
  await updatePluginConfig(platform.deps, captcha.id, { signing_key: CAPTCHA_KEY });
  await enablePlugin(platform.deps, captcha.id);
  await createPluginBinding(platform.deps, { plugin_id: captcha.id, binding_type: 'default', scene: 'default' });
  logs = captureLogs(platform);
});
afterAll(async () => {
  await platform?.close();
  await notifier?.stop();
});

type Client = { id: number; token: string; email: string; password: string };

async function register(phone?: string): Promise<Client> {
  const email = `id-${randomBytes(5).toString('hex')}@example.com`;
  const password = 'first-password-1';
  const res = await platform.api.post('/api/v2/client/register', { body: { email, password } });
  expect(res.body.code).toBe(0);
  const id = res.body.data.user.id as number;
  if (phone) await platform.deps.db.read('UPDATE users SET phone = $2 WHERE id = $1 RETURNING id', [id, phone]);
  return { id, token: res.body.data.access_token as string, email, password };
}

/** The code in the newest mail to the address (waits for it; registers it as a secret no answer may show). */
async function mailedCode(address: string, after = 0): Promise<string> {
  let code = '';
  await settles(async () => {
    const found = mail.control.messages().filter((m) => m.to.includes(address) && m.id > after);
    const text = found.at(-1)?.text ?? '';
    const match = /验证码是 (\d{6})/.exec(text);
    expect(match).not.toBeNull();
    code = match?.[1] ?? '';
  });
  registerKnownSecret(`验证码是 ${code}`);
  return code;
}

function lastMailId(): number {
  return mail.control.messages().at(-1)?.id ?? 0;
}

/** A captcha challenge whose answer the test knows: the stored signed id is replaced by one with a known answer. */
async function solvedCaptcha(): Promise<{ captcha_id: string; captcha_answer: string }> {
  const res = await platform.api.get('/api/v2/client/auth/captcha');
  expect(res.body.code, res.body.message).toBe(0);
  const image = await fetch(res.body.data.image_url as string);
  expect(image.headers.get('content-type')).toContain('image/svg+xml');
  const { token } = issueToken(CAPTCHA_KEY, 'AB12', Math.floor(Date.now() / 1000) + 300);
  await platform.deps.db.read('UPDATE captcha_challenges SET captcha_token = $2 WHERE id = $1 RETURNING id', [res.body.data.challenge_id, token]);
  return { captcha_id: res.body.data.challenge_id as string, captcha_answer: 'ab12' };
}

describe('e-mail verification', () => {
  it('sends a code to the own address; the code verifies once and is refused after use', async () => {
    const client = await register();
    const before = lastMailId();
    const sent = await platform.api.post('/api/v2/client/auth/email/verification', { token: client.token });
    expect(sent.body.code, sent.body.message).toBe(0);
    const code = await mailedCode(client.email, before);
    expectError(await platform.api.post('/api/v2/client/auth/email/verify', { token: client.token, body: { code: code === '000000' ? '111111' : '000000' } }), 42200, 422);
    const ok = await platform.api.post('/api/v2/client/auth/email/verify', { token: client.token, body: { code } });
    expect(ok.body.code, ok.body.message).toBe(0);
    const me = await platform.api.get('/api/v2/client/auth/me', { token: client.token });
    expect(me.body.data.email_verified).toBe(true);
    expectError(await platform.api.post('/api/v2/client/auth/email/verify', { token: client.token, body: { code } }), 40900, 409);
    const stored = await platform.deps.db.read<{ n: number }>('SELECT count(*)::int AS n FROM auth_codes WHERE code_hash LIKE $1', [`%${code}%`]);
    expect(stored[0]?.n).toBe(0);
  });

  it('limits wrong guesses per code and refuses an expired code', async () => {
    const client = await register();
    const before = lastMailId();
    await platform.api.post('/api/v2/client/auth/email/verification', { token: client.token });
    const code = await mailedCode(client.email, before);
    const wrong = code === '123456' ? '654321' : '123456';
    for (let i = 0; i < platform.deps.config.authCodes.maxAttempts; i++) {
      expectError(await platform.api.post('/api/v2/client/auth/email/verify', { token: client.token, body: { code: wrong } }), 42200, 422);
    }
    expectError(await platform.api.post('/api/v2/client/auth/email/verify', { token: client.token, body: { code } }), 42200, 422);

    const again = lastMailId();
    await platform.api.post('/api/v2/client/auth/email/verification', { token: client.token });
    const fresh = await mailedCode(client.email, again);
    await platform.deps.db.read(`UPDATE auth_codes SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND consumed_at IS NULL RETURNING id`, [client.id]);
    expectError(await platform.api.post('/api/v2/client/auth/email/verify', { token: client.token, body: { code: fresh } }), 42200, 422);
  });

  it('throttles sending per account', async () => {
    const client = await register();
    for (let i = 0; i < 4; i++) expect((await platform.api.post('/api/v2/client/auth/email/verification', { token: client.token })).body.code).toBe(0);
    expectError(await platform.api.post('/api/v2/client/auth/email/verification', { token: client.token }), 42900, 429);
  });
});

describe('password reset', () => {
  it('by e-mail: the captcha first, then the code sets a new password once and ends every session', async () => {
    const client = await register();
    expectError(await platform.api.post('/api/v2/client/auth/password/reset-code', { body: { channel: 'email', account: client.email, captcha_id: '0'.repeat(32), captcha_answer: 'x' } }), 42200, 422);
    const captcha = await solvedCaptcha();
    const before = lastMailId();
    const sent = await platform.api.post('/api/v2/client/auth/password/reset-code', { body: { channel: 'email', account: client.email, ...captcha } });
    expect(sent.body).toMatchObject({ code: 0, message: '如果该账号存在，验证码已发送，请查收' });
    // The captcha was used once.
    expectError(await platform.api.post('/api/v2/client/auth/password/reset-code', { body: { channel: 'email', account: client.email, ...captcha } }), 42200, 422);
    const code = await mailedCode(client.email, before);
    const reset = await platform.api.post('/api/v2/client/auth/password/reset', { body: { channel: 'email', account: client.email, code, new_password: 'second-password-2' } });
    expect(reset.body.code, reset.body.message).toBe(0);
    expectError(await platform.api.get('/api/v2/client/auth/me', { token: client.token }), 40100, 401);
    const login = await platform.api.post('/api/v2/client/login', { body: { account: client.email, password: 'second-password-2' } });
    expect(login.body.code).toBe(0);
    expectError(await platform.api.post('/api/v2/client/auth/password/reset', { body: { channel: 'email', account: client.email, code, new_password: 'third-password-3' } }), 42200, 422);
  });

  it('by SMS, through the SMS gateway sandbox', async () => {
    const phone = `139${String(Date.now()).slice(-8)}`;
    const client = await register(phone);
    sms.control.clearMessages();
    const sent = await platform.api.post('/api/v2/client/auth/password/reset-code', { body: { channel: 'sms', account: phone, ...(await solvedCaptcha()) } });
    expect(sent.body.code, sent.body.message).toBe(0);
    let code = '';
    await settles(async () => {
      const message = sms.control.messages().find((m) => m.phone === phone);
      expect(message).toBeDefined();
      code = String(message?.params.code ?? '');
    });
    registerKnownSecret(`"${code}"`);
    const reset = await platform.api.post('/api/v2/client/auth/password/reset', { body: { channel: 'sms', account: phone, code, new_password: 'sms-password-2' } });
    expect(reset.body.code, reset.body.message).toBe(0);
    expect((await platform.api.post('/api/v2/client/login', { body: { account: client.email, password: 'sms-password-2' } })).body.code).toBe(0);
  });

  it('answers the same for an unknown account, sends nothing, and throttles it the same way', async () => {
    const unknown = `nobody-${randomBytes(4).toString('hex')}@example.com`;
    const before = lastMailId();
    for (let i = 0; i < 4; i++) {
      const res = await platform.api.post('/api/v2/client/auth/password/reset-code', { body: { channel: 'email', account: unknown, ...(await solvedCaptcha()) } });
      expect(res.body).toMatchObject({ code: 0, message: '如果该账号存在，验证码已发送，请查收' });
    }
    expectError(await platform.api.post('/api/v2/client/auth/password/reset-code', { body: { channel: 'email', account: unknown, ...(await solvedCaptcha()) } }), 42900, 429);
    await new Promise((r) => setTimeout(r, 300));
    expect(mail.control.messages().filter((m) => m.id > before && m.to.includes(unknown))).toEqual([]);
    const reset = await platform.api.post('/api/v2/client/auth/password/reset', { body: { channel: 'email', account: unknown, code: '123456', new_password: 'whatever-pass-1' } });
    expectError(reset, 42200, 422);
    expect(reset.body.message).toBe('参数校验失败');
  });

  it('never writes a code to a log line', () => {
    const joined = logs.join('\n');
    for (const m of mail.control.messages()) {
      const code = /验证码是 (\d{6})/.exec(m.text ?? '')?.[1];
      if (code) expect(joined).not.toMatch(new RegExp(`\\b${code}\\b`));
    }
  });
});

describe('throttling per IP', () => {
  it('refuses sends past the hourly limit of one address', async () => {
    platform.deps.config.authCodes.maxPerIpHour = 1;
    try {
      const client = await register();
      expectError(await platform.api.post('/api/v2/client/auth/email/verification', { token: client.token }), 42900, 429);
    } finally {
      platform.deps.config.authCodes.maxPerIpHour = 1000;
    }
  });
});

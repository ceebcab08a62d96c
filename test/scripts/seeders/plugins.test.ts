import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureBuiltInPlugins } from '../../../scripts/seeders/plugins.js';
import { type RunningSandboxes, SANDBOX_CREDENTIALS, startSandboxes } from '../../../sandbox/launcher.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

let platform: TestPlatform;
let sandboxes: RunningSandboxes;
const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const secrets = {
  merchantPrivateKeyPem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  captchaSigningKey: 'captcha-signing-key-for-tests-0001',
};

beforeAll(async () => {
  sandboxes = await startSandboxes({ merchantPublicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString() });
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform?.close();
  await sandboxes?.stop();
});

describe('built-in plugins against the sandboxes (what npm run dev sets up)', () => {
  it('installs, configures, enables and binds every built-in plugin, idempotently', async () => {
    const first = await configureBuiltInPlugins(platform.deps, sandboxes, secrets);
    const again = await configureBuiltInPlugins(platform.deps, sandboxes, secrets);
    expect(again).toEqual(first);
    expect(first.sort()).toEqual([
      'addons/daily_report',
      'captcha/image_captcha',
      'mail/smtp',
      'payment/qrpay',
      'sms/smsgate',
      'upstream/upstream_finance',
      'verification/certify',
    ]);
    const { Plugin, PluginBinding } = platform.deps.db.models;
    expect(await Plugin.count({ where: { status: 'enabled' } })).toBe(7);
    expect(await PluginBinding.count({ where: { binding_type: 'default', scene: 'default' } })).toBe(5);
  });

  it('every plugin passes its health check through the admin API, and no secret is ever answered', async () => {
    const token = await platform.rootToken();
    const rows = await platform.deps.db.models.Plugin.findAll({ order: [['id', 'ASC']] });
    const bodies: string[] = [];
    const results: Record<string, boolean> = {};
    for (const row of rows) {
      const health = await platform.api.post(`/api/v2/admin/integration-plugins/${row.id}/health-check`, { token });
      results[`${row.domain}/${row.slug}`] = health.body.data.success;
      bodies.push(health.raw, (await platform.api.get(`/api/v2/admin/integration-plugins/${row.id}`, { token })).raw);
    }
    expect(results).toEqual({
      'payment/qrpay': true,
      'verification/certify': true,
      'sms/smsgate': true,
      'mail/smtp': true,
      'captcha/image_captcha': true,
      'upstream/upstream_finance': true,
      'addons/daily_report': true,
    });
    bodies.push((await platform.api.get('/api/v2/admin/integration-plugins/runtime-logs', { token })).raw);
    const known = [
      SANDBOX_CREDENTIALS.certify.appSecret,
      SANDBOX_CREDENTIALS.sms.accessKeySecret,
      SANDBOX_CREDENTIALS.smtp.password,
      SANDBOX_CREDENTIALS.upstream.apiKey,
      secrets.captchaSigningKey,
      secrets.merchantPrivateKeyPem.split('\n')[1] as string,
    ];
    for (const body of bodies) for (const secret of known) expect(body).not.toContain(secret);
    const stored = JSON.stringify((await platform.deps.db.models.Plugin.findAll()).map((p) => [p.config, p.secrets]));
    for (const secret of known) expect(stored).not.toContain(secret);
  });
});

import { expect } from 'vitest';
import { createPluginBinding } from '../../domain/plugins/plugin-bindings.js';
import { installPlugin } from '../../domain/plugins/plugin-install.js';
import { enablePlugin, updatePluginConfig } from '../../domain/plugins/plugin-lifecycle.js';
import { type CertifySandbox, startCertifySandbox } from '../../sandbox/certify/server.js';
import { registerKnownSecret } from './known-secrets.js';
import { startTestPlatform, type TestPlatform } from './platform.js';

export type IdentityPlatform = TestPlatform & { certify: CertifySandbox };

/**
 * The platform with real workers and the certify provider sandbox, the certify plugin installed,
 * configured against it, enabled and bound. The public base URL is the test server, so the
 * sandbox's callbacks reach our callback route. Polling is fast (1 s) for the tests.
 */
export async function startIdentityPlatform(env: Record<string, string> = {}): Promise<IdentityPlatform> {
  const certify = await startCertifySandbox({ appId: 'identity-test-app', appSecret: 'identity-test-certify-secret' });
  registerKnownSecret(certify.appSecret);
  const platform = await startTestPlatform({ worker: true, env: { VERIFICATION_POLL_INTERVALS_SECONDS: '1', ...env } });
  platform.deps.config.publicBaseUrl = platform.baseUrl;
  const plugin = await installPlugin(platform.deps, 'verification', 'certify');
  await updatePluginConfig(platform.deps, plugin.id, { app_id: certify.appId, app_secret: certify.appSecret, base_url: certify.baseUrl });
  await enablePlugin(platform.deps, plugin.id);
  await createPluginBinding(platform.deps, { plugin_id: plugin.id, binding_type: 'default', scene: 'default' });
  const close = platform.close.bind(platform);
  return Object.assign(platform, {
    certify,
    async close() {
      await close();
      await certify.stop();
    },
  });
}

/** Valid resident ID numbers (GB 11643 check digits), one per test person. */
export function idNumber(seed: number): string {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const body = `110105199001${String(seed % 100).padStart(2, '0')}${String(100 + (seed % 900)).padStart(3, '0')}`;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(body[i]) * (weights[i] as number);
  const id = `${body}${'10X98765432'[sum % 11]}`;
  registerKnownSecret(id);
  return id;
}

/** The phone's side: our QR code → scan relay → the provider page, finished with `result`. */
export async function scanAndFinish(platform: TestPlatform, token: string, result: 'pass' | 'fail', reason?: string) {
  const qr = await platform.api.post('/api/v2/client/verification/qrcode', { token });
  expect(qr.body.code, qr.body.message).toBe(0);
  const scan = await fetch(qr.body.data.scan_url as string, { redirect: 'manual' });
  expect(scan.status).toBe(302);
  const target = new URL(scan.headers.get('location') as string);
  target.searchParams.set('result', result);
  if (reason) target.searchParams.set('reason', reason);
  const done = await fetch(target, { method: 'POST' });
  expect(done.status).toBe(200);
  return { qr: qr.body.data as { url: string; scan_url: string; certify_id: string }, provider: (await done.json()) as Record<string, any> };
}

/** Retries an assertion until it holds (the last failure is thrown after `attempts` tries, 100 ms apart). */
export async function settles(assertion: () => Promise<void>, attempts = 300): Promise<void> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      await assertion();
      return;
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw last;
}

/**
 * Calls the verification tests share (the client route, its workflow, the admin's list): the
 * caller's status, a new attempt, and the fee settings of the running platform. `session` answers
 * the file's platform once its `beforeAll` has made it.
 */
export function verificationCalls(session: () => TestPlatform) {
  async function status(client: { token: string }) {
    const res = await session().api.get('/api/v2/client/verification/status', { token: client.token });
    expect(res.body.code, res.body.message).toBe(0);
    return res.body.data;
  }

  async function init(client: { token: string }, id: string, name = '张三') {
    return session().api.post('/api/v2/client/verification/init', { token: client.token, body: { name, id_number: id } });
  }

  function freeAttempts(n: number, fee = '0.00') {
    session().deps.config.verification.freeAttempts = n;
    session().deps.config.verification.fee = fee;
  }

  return { status, init, freeAttempts };
}

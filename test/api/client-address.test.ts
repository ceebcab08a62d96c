import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess } from '../helpers/api-process.js';
import { sessionIdOf } from '../helpers/auth-cache.js';
import { type ApiClient, createApiClient, expectError } from '../helpers/http.js';
import { ROOT_ADMIN, startTestPlatform, type TestPlatform } from '../helpers/platform.js';

let direct: TestPlatform;
let proxied: TestPlatform;

beforeAll(async () => {
  direct = await startTestPlatform();
  // The test's own requests come from 127.0.0.1: here that is the trusted reverse proxy.
  proxied = await startTestPlatform({ env: { TRUST_PROXY: '127.0.0.1' } });
});
afterAll(async () => {
  await direct?.close();
  await proxied?.close();
});

/** Logs root in, and answers the address of its login log row and of the session it opened. */
async function adminLogin(platform: TestPlatform, api: ApiClient, headers: Record<string, string> = {}) {
  const res = await api.post('/api/v2/admin/login', { body: ROOT_ADMIN, headers: { 'user-agent': 'address-test', ...headers } });
  expect(res.body.code).toBe(0);
  const token = res.body.data.access_token as string;
  const { LoginLog, AuthSession } = platform.deps.db.models;
  const log = await LoginLog.findOne({ where: { account: 'root', success: true }, order: [['id', 'DESC']] });
  const session = await AuthSession.findByPk(sessionIdOf(token));
  return { token, logIp: log?.ip, sessionIp: session?.ip, userAgent: session?.user_agent };
}

describe('the client address through api/main.ts', () => {
  it('is recorded in the login log and the session (it was empty: main.ts dropped the socket)', async () => {
    const api = startApiProcess(direct);
    try {
      const client = createApiClient(await api.ready);
      expect(await adminLogin(direct, client, { 'x-forwarded-for': '6.6.6.6' })).toMatchObject({
        logIp: '127.0.0.1',
        sessionIp: '127.0.0.1',
        userAgent: 'address-test',
      });
    } finally {
      expect(await api.stop()).toBe(0);
    }
  });
});

describe('the client address without TRUST_PROXY', () => {
  it('is the socket peer of the test platform (served by the same serveApp as main.ts)', async () => {
    expect(await adminLogin(direct, direct.api)).toMatchObject({ logIp: '127.0.0.1', sessionIp: '127.0.0.1' });
  });

  it('ignores X-Forwarded-For', async () => {
    expect(await adminLogin(direct, direct.api, { 'x-forwarded-for': '198.51.100.7' })).toMatchObject({ logIp: '127.0.0.1', sessionIp: '127.0.0.1' });
  });
});

describe('the client address behind a trusted proxy (TRUST_PROXY=127.0.0.1)', () => {
  it('is the address the proxy saw', async () => {
    expect(await adminLogin(proxied, proxied.api, { 'x-forwarded-for': '198.51.100.7' })).toMatchObject({
      logIp: '198.51.100.7',
      sessionIp: '198.51.100.7',
    });
  });

  it('takes the first untrusted hop from the right: a spoofed leftmost entry is ignored', async () => {
    const spoofed = { 'x-forwarded-for': '1.2.3.4, 203.0.113.20, 127.0.0.1' };
    expect(await adminLogin(proxied, proxied.api, spoofed)).toMatchObject({ logIp: '203.0.113.20', sessionIp: '203.0.113.20' });
  });

  it('is the peer itself without X-Forwarded-For', async () => {
    expect(await adminLogin(proxied, proxied.api)).toMatchObject({ logIp: '127.0.0.1', sessionIp: '127.0.0.1' });
  });

  it('reaches failed client logins, registrations and refreshed sessions', async () => {
    const from = { 'x-forwarded-for': '198.51.100.30' };
    const reg = await proxied.api.post('/api/v2/client/register', { body: { email: 'addr@example.com', password: 'addr-password-1' }, headers: from });
    const { AuthSession, LoginLog } = proxied.deps.db.models;
    expect((await AuthSession.findByPk(sessionIdOf(reg.body.data.access_token)))?.ip).toBe('198.51.100.30');
    const failed = await proxied.api.post('/api/v2/client/login', { body: { account: 'addr@example.com', password: 'wrong-password' }, headers: from });
    expectError(failed, 40100, 401);
    const log = await LoginLog.findOne({ where: { account: 'addr@example.com', success: false }, order: [['id', 'DESC']] });
    expect(log?.ip).toBe('198.51.100.30');
    const refreshed = await proxied.api.post('/api/v2/client/auth/refresh', { token: reg.body.data.access_token, headers: { 'x-forwarded-for': '198.51.100.31' } });
    expect((await AuthSession.findByPk(sessionIdOf(refreshed.body.data.access_token)))?.ip).toBe('198.51.100.31');
  });
});

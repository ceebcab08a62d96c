import { Op } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAdmin, loginClient } from '../../../domain/auth/login.js';
import type { RequestMeta } from '../../../domain/auth/sessions.js';
import { AppError } from '../../../lib/errors.js';
import { expectError } from '../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

// Per account and address 3, per address 8, per account over all addresses 6; window 900 s.
const WINDOW_SECONDS = 900;
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({
    env: {
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '3',
      LOGIN_MAX_FAILURES_PER_IP: '8',
      LOGIN_MAX_FAILURES_PER_ACCOUNT_GLOBAL: '6',
      LOGIN_THROTTLE_WINDOW_SECONDS: String(WINDOW_SECONDS),
    },
  });
});
afterAll(() => platform?.close());

const PASSWORD = 'owner-password-1';
const meta = (ip: string): RequestMeta => ({ ip, userAgent: 'throttle-test' });

async function registerClient(email: string): Promise<number> {
  const res = await platform.api.post('/api/v2/client/register', { body: { email, password: PASSWORD } });
  expect(res.body.code).toBe(0);
  return res.body.data.user.id as number;
}

/** One client login through the domain function; answers 0 or the business error code. */
async function tryLogin(account: string, password: string, ip: string): Promise<number> {
  try {
    await loginClient(platform.deps, { account, password }, meta(ip));
    return 0;
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
}

async function rows(account: string) {
  return platform.deps.db.models.LoginLog.findAll({ where: { surface: 'client', account }, order: [['id', 'ASC']] });
}

/** Moves login-log rows of an account back in time, instead of waiting for the window to pass. */
async function age(account: string, reason: string, seconds: number, limit?: number) {
  const ids = (await rows(account)).filter((r) => r.reason === reason).map((r) => r.id).slice(0, limit);
  await platform.deps.db.sequelize.query(`UPDATE login_logs SET created_at = now() - make_interval(secs => :seconds) WHERE id IN (:ids)`, {
    replacements: { seconds, ids },
  });
}

describe('login throttling by account and address', () => {
  it('an attacker with wrong passwords throttles only their own address: the owner logs in from another', async () => {
    const email = 'attacked@example.com';
    const userId = await registerClient(email);
    const answers: number[] = [];
    for (let i = 0; i < 6; i++) answers.push(await tryLogin(email, 'wrong-password', '203.0.113.10'));
    expect(answers).toEqual([40100, 40100, 40100, 42900, 42900, 42900]);
    expect(await tryLogin(email, PASSWORD, '203.0.113.10')).toBe(42900);

    expect(await tryLogin(email, PASSWORD, '198.51.100.20')).toBe(0);
    const log = await rows(email);
    expect(log.map((r) => r.reason)).toEqual([
      'bad_password',
      'bad_password',
      'bad_password',
      'throttled',
      'throttled',
      'throttled',
      'throttled',
      'after_failures:3,addresses:1',
    ]);
    expect(log.at(-1)).toMatchObject({ success: true, subject_id: userId, ip: '198.51.100.20' });
    expect(log.filter((r) => r.reason === 'throttled').every((r) => !r.success && r.subject_id === null)).toBe(true);
  });

  it('a refused attempt never verifies the password and never counts, so asking again cannot extend the throttle', async () => {
    const email = 'extend@example.com';
    await registerClient(email);
    for (let i = 0; i < 3; i++) expect(await tryLogin(email, 'wrong-password', '203.0.113.11')).toBe(40100);
    for (let i = 0; i < 4; i++) expect(await tryLogin(email, i % 2 ? PASSWORD : 'wrong-password', '203.0.113.11')).toBe(42900);
    expect((await rows(email)).filter((r) => r.reason === 'bad_password')).toHaveLength(3);

    // The counted failures leave the window; the refused attempts after them are still recent.
    await age(email, 'bad_password', WINDOW_SECONDS + 5);
    expect(await tryLogin(email, PASSWORD, '203.0.113.11')).toBe(0);
  });

  it('slides: a pair is free again as soon as enough of its failures are older than the window, and says how long to wait', async () => {
    const email = 'sliding@example.com';
    await registerClient(email);
    for (let i = 0; i < 3; i++) expect(await tryLogin(email, 'wrong-password', '203.0.113.12')).toBe(40100);
    // Oldest failure 630 s ago: the pair is free when it leaves the 900 s window, in 270 s.
    await age(email, 'bad_password', 630, 1);
    await expect(loginClient(platform.deps, { account: email, password: PASSWORD }, meta('203.0.113.12'))).rejects.toMatchObject({
      code: 42900,
      message: '登录失败次数过多，请 5 分钟后再试',
    });

    await age(email, 'bad_password', WINDOW_SECONDS + 5, 1);
    expect(await tryLogin(email, 'wrong-password', '203.0.113.12')).toBe(40100);
    expect(await tryLogin(email, PASSWORD, '203.0.113.12')).toBe(42900);
  });

  it('limits an address over all accounts, and only that address', async () => {
    const email = 'sprayed@example.com';
    await registerClient(email);
    for (let i = 0; i < 8; i++) expect(await tryLogin(`nobody-${i}@example.com`, 'guess-password', '203.0.113.13')).toBe(40100);
    expect(await tryLogin(email, PASSWORD, '203.0.113.13')).toBe(42900);
    await expect(
      loginAdmin(platform.deps, { username: 'root', password: 'anything-1' }, meta('203.0.113.13')),
    ).rejects.toMatchObject({ code: 42900 });
    expect(await tryLogin(email, PASSWORD, '198.51.100.13')).toBe(0);
  });

  it('past the account-wide ceiling each address gets one guess per window, and a clean address still logs in', async () => {
    const email = 'distributed@example.com';
    await registerClient(email);
    // 2 + 4 = 6 failures from five addresses: the account reaches the global ceiling.
    expect(await tryLogin(email, 'wrong-password', '192.0.2.1')).toBe(40100);
    expect(await tryLogin(email, 'wrong-password', '192.0.2.1')).toBe(40100);
    for (const ip of ['192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5']) expect(await tryLogin(email, 'wrong-password', ip)).toBe(40100);
    // Below the per-pair limit of 3, but this address has already guessed on this account.
    expect(await tryLogin(email, PASSWORD, '192.0.2.1')).toBe(42900);
    // A fresh address gets exactly one guess.
    expect(await tryLogin(email, 'wrong-password', '192.0.2.6')).toBe(40100);
    expect(await tryLogin(email, PASSWORD, '192.0.2.6')).toBe(42900);

    expect(await tryLogin(email, PASSWORD, '198.51.100.30')).toBe(0);
    expect((await rows(email)).at(-1)?.reason).toBe('after_failures:7,addresses:6');
    // The account as a whole was never locked: another clean address still gets in.
    expect(await tryLogin(email, PASSWORD, '198.51.100.31')).toBe(0);
    expect((await rows(email)).at(-1)?.reason).toBe('');
  });

  it('counts an IPv6 client by its /64, and IPv4-mapped addresses as IPv4', async () => {
    const email = 'ipv6@example.com';
    await registerClient(email);
    for (const ip of ['2001:db8:1:2::a', '2001:db8:1:2::b', '2001:0db8:0001:0002:0:0:0:c']) {
      expect(await tryLogin(email, 'wrong-password', ip)).toBe(40100);
    }
    expect(await tryLogin(email, PASSWORD, '2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(42900);
    expect(await tryLogin(email, PASSWORD, '2001:db8:1:3::1')).toBe(0);

    const mapped = 'mapped@example.com';
    await registerClient(mapped);
    for (let i = 0; i < 3; i++) expect(await tryLogin(mapped, 'wrong-password', '::ffff:203.0.113.14')).toBe(40100);
    expect(await tryLogin(mapped, PASSWORD, '203.0.113.14')).toBe(42900);
  });

  it('a burst of parallel guesses from one address gets no more than the per-pair limit verified', async () => {
    const email = 'burst@example.com';
    await registerClient(email);
    const answers = await Promise.all(Array.from({ length: 10 }, () => tryLogin(email, 'wrong-password', '203.0.113.15')));
    expect(answers.every((a) => a === 40100 || a === 42900)).toBe(true);
    expect(answers.filter((a) => a === 40100).length).toBeLessThanOrEqual(3);
    const log = await rows(email);
    expect(log).toHaveLength(10);
    expect(log.filter((r) => r.reason === 'bad_password').length).toBeLessThanOrEqual(3);
    expect(log.some((r) => r.reason === 'pending')).toBe(false);
  });
});

describe('login throttling over HTTP', () => {
  it('twenty simultaneous logins with the right password from one address all succeed (attempts in progress are not failures)', async () => {
    const email = 'office@example.com';
    await registerClient(email);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => platform.api.post('/api/v2/client/login', { body: { account: email, password: PASSWORD } })),
    );
    expect(answers.map((res) => [res.status, res.body.code, res.body.code === 0 ? '' : res.body.message])).toEqual(
      Array.from({ length: 20 }, () => [200, 0, '']),
    );
    const log = await rows(email);
    expect(log.map((r) => r.reason)).toEqual(Array.from({ length: 20 }, () => ''));
  });

  it('beside two real failures, simultaneous right passwords are still let in; the next failure then throttles truthfully', async () => {
    const email = 'office-typo@example.com';
    await registerClient(email);
    const answers = await Promise.all([
      ...Array.from({ length: 2 }, () => tryLogin(email, 'wrong-password', '203.0.113.17')),
      ...Array.from({ length: 10 }, () => tryLogin(email, PASSWORD, '203.0.113.17')),
    ]);
    expect(answers).toEqual([40100, 40100, ...Array.from({ length: 10 }, () => 0)]);
    expect(await tryLogin(email, 'wrong-password', '203.0.113.17')).toBe(40100);
    await expect(loginClient(platform.deps, { account: email, password: PASSWORD }, meta('203.0.113.17'))).rejects.toMatchObject({
      code: 42900,
      message: '登录失败次数过多，请 15 分钟后再试',
    });
  });

  it('the owner logs in while the account is throttled for an attacker, and the admin login log shows the failures', async () => {
    const email = 'http-owner@example.com';
    const userId = await registerClient(email);
    for (let i = 0; i < 5; i++) await tryLogin(email, 'wrong-password', '203.0.113.16');
    expect(await tryLogin(email, PASSWORD, '203.0.113.16')).toBe(42900);

    const login = await platform.api.post('/api/v2/client/login', { body: { account: email, password: PASSWORD } });
    expect(login.body.code).toBe(0);
    expect(login.body.data.user.id).toBe(userId);

    const token = await platform.rootToken();
    const list = await platform.api.get('/api/v2/admin/logs/login-logs', { token, query: { surface: 'client', account: email } });
    expect(list.body.code).toBe(0);
    const [newest, ...older] = list.body.data.list as Array<{ success: boolean; reason: string; ip: string; subject_id: number | null }>;
    expect(newest).toMatchObject({ success: true, reason: 'after_failures:3,addresses:1', subject_id: userId });
    expect(newest?.ip).toContain('127.0.0.1');
    expect(older.map((r) => r.reason)).toEqual(['throttled', 'throttled', 'throttled', 'bad_password', 'bad_password', 'bad_password']);
    expect(older.every((r) => r.ip === '203.0.113.16' && !r.success)).toBe(true);
  });

  it('a throttled address gets 42900 over HTTP even with the right password', async () => {
    const email = 'http-throttled@example.com';
    await registerClient(email);
    for (let i = 0; i < 3; i++) {
      expectError(await platform.api.post('/api/v2/client/login', { body: { account: email, password: 'wrong-password' } }), 40100, 401);
    }
    const refused = await platform.api.post('/api/v2/client/login', { body: { account: email, password: PASSWORD } });
    expectError(refused, 42900, 429);
    expect(refused.body.message).toMatch(/^登录失败次数过多，请 \d+ 分钟后再试$/);
    const counted = await platform.deps.db.models.LoginLog.count({ where: { account: email, reason: { [Op.in]: ['bad_password', 'unknown_account'] } } });
    expect(counted).toBe(3);
  });
});

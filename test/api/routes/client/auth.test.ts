import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { md5Hex } from '../../../../lib/crypto.js';
import { expectError } from '../../../helpers/http.js';
import { ROOT_ADMIN, startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { LOGIN_MAX_FAILURES_PER_ACCOUNT: '3', LOGIN_MAX_FAILURES_PER_IP: '50' } });
});
afterAll(() => platform?.close());

async function register(email: string, password = 'client-password-1') {
  return platform.api.post('/api/v2/client/register', { body: { email, password } });
}

describe('admin login', () => {
  it('returns a bearer token and the admin with role and permissions', async () => {
    const res = await platform.api.post('/api/v2/admin/login', { body: ROOT_ADMIN });
    expect(res.body.code).toBe(0);
    expect(res.body.data).toMatchObject({ token_type: 'Bearer', expires_in: 7200, admin: { username: 'root', status: 'active' } });
    expect(res.body.data.admin.role.code).toBe('super_admin');
    expect(res.body.data.admin.permissions).toContain('user.recharge');
    expect(res.raw).not.toContain('password_hash');
    const me = await platform.api.get('/api/v2/admin/auth/me', { token: res.body.data.access_token });
    expect(me.body.data.username).toBe('root');
  });

  it('refuses a wrong password with 40100 and logs the attempt', async () => {
    const res = await platform.api.post('/api/v2/admin/login', { body: { username: 'root', password: 'not-the-password' } });
    expectError(res, 40100, 401);
    expect(res.body.message).toBe('账号或密码错误');
    const log = await platform.deps.db.models.LoginLog.findOne({ where: { account: 'root', success: false }, order: [['id', 'DESC']] });
    expect(log?.reason).toBe('bad_password');
  });

  it('gives the same answer for an unknown account', async () => {
    const res = await platform.api.post('/api/v2/admin/login', { body: { username: 'ghost', password: 'whatever-1' } });
    expectError(res, 40100, 401);
    expect(res.body.message).toBe('账号或密码错误');
  });
});

describe('login throttling', () => {
  it('throttles an account for the address that failed, even with the right password (other addresses: test/domain/auth/login-throttle.test.ts)', async () => {
    await register('throttle@example.com', 'right-password-1');
    for (let i = 0; i < 3; i++) {
      const res = await platform.api.post('/api/v2/client/login', { body: { account: 'throttle@example.com', password: 'wrong-password' } });
      expectError(res, 40100, 401);
    }
    const locked = await platform.api.post('/api/v2/client/login', { body: { account: 'throttle@example.com', password: 'right-password-1' } });
    expectError(locked, 42900, 429);
    expect(locked.body.message).toContain('分钟后再试');
    const other = await register('not-throttled@example.com');
    expect(other.body.code).toBe(0);
  });
});

describe('client registration and login', () => {
  it('registers by e-mail, signs in, and logs in by e-mail case-insensitively', async () => {
    const reg = await register('Alice@Example.com');
    expect(reg.body.code).toBe(0);
    expect(reg.body.data.user).toMatchObject({ email: 'alice@example.com', status: 'active', email_verified: false, is_verified: 0 });
    const login = await platform.api.post('/api/v2/client/login', { body: { account: 'ALICE@example.com', password: 'client-password-1' } });
    expect(login.body.data.user.id).toBe(reg.body.data.user.id);
  });

  it('logs in by phone number', async () => {
    const reg = await register('phone-user@example.com');
    await platform.deps.db.models.User.update({ phone: '13800000001' }, { where: { id: reg.body.data.user.id } });
    const login = await platform.api.post('/api/v2/client/login', { body: { account: '13800000001', password: 'client-password-1' } });
    expect(login.body.data.user.id).toBe(reg.body.data.user.id);
  });

  it('refuses a second registration of the same e-mail with 40900 and adds no user', async () => {
    await register('dup@example.com');
    const before = await platform.deps.db.models.User.count();
    const again = await register('DUP@example.com');
    expectError(again, 40900, 409);
    expect(await platform.deps.db.models.User.count()).toBe(before);
  });

  it('stores passwords as argon2id, never in clear', async () => {
    const reg = await register('hash@example.com', 'visible-password-1');
    const row = await platform.deps.db.models.User.findByPk(reg.body.data.user.id);
    expect(row?.password_hash).toMatch(/^\$argon2id\$/);
    expect(row?.password_hash).not.toContain('visible-password-1');
  });
});

describe('legacy passwords', () => {
  it('accepts ### + MD5 once and upgrades it to argon2id on the spot', async () => {
    const user = await platform.deps.db.models.User.create({
      email: 'legacy@example.com',
      phone: null,
      nickname: 'legacy',
      password_hash: `###${md5Hex('old-system-pass')}`,
      status: 'active',
    });
    const login = await platform.api.post('/api/v2/client/login', { body: { account: 'legacy@example.com', password: 'old-system-pass' } });
    expect(login.body.code).toBe(0);
    await user.reload();
    expect(user.password_hash).toMatch(/^\$argon2id\$/);
    const again = await platform.api.post('/api/v2/client/login', { body: { account: 'legacy@example.com', password: 'old-system-pass' } });
    expect(again.body.code).toBe(0);
    const wrong = await platform.api.post('/api/v2/client/login', { body: { account: 'legacy@example.com', password: 'old-system-pasS' } });
    expectError(wrong, 40100, 401);
  });
});

describe('sessions', () => {
  it('logout revokes the token at once', async () => {
    const { body } = await register('logout@example.com');
    const token = body.data.access_token;
    expect((await platform.api.get('/api/v2/client/auth/me', { token })).body.code).toBe(0);
    expect((await platform.api.post('/api/v2/client/auth/logout', { token })).body.code).toBe(0);
    expectError(await platform.api.get('/api/v2/client/auth/me', { token }), 40100, 401);
  });

  it('refresh issues a new token and retires the old one', async () => {
    const { body } = await register('refresh@example.com');
    const old = body.data.access_token;
    const refreshed = await platform.api.post('/api/v2/client/auth/refresh', { token: old });
    const fresh = refreshed.body.data.access_token;
    expect(fresh).not.toBe(old);
    expectError(await platform.api.get('/api/v2/client/auth/me', { token: old }), 40100, 401);
    expect((await platform.api.get('/api/v2/client/auth/me', { token: fresh })).body.code).toBe(0);
  });

  it('a password change revokes every session and the new password works', async () => {
    const { body } = await register('change@example.com', 'first-password-1');
    const other = await platform.api.post('/api/v2/client/login', { body: { account: 'change@example.com', password: 'first-password-1' } });
    const wrongOld = await platform.api.post('/api/v2/client/password', {
      token: body.data.access_token,
      body: { old_password: 'nope-nope-1', new_password: 'second-password-1' },
    });
    expectError(wrongOld, 42200, 422);
    expect(wrongOld.body.data.errors.old_password).toEqual(['当前密码不正确']);
    const changed = await platform.api.post('/api/v2/client/password', {
      token: body.data.access_token,
      body: { old_password: 'first-password-1', new_password: 'second-password-1' },
    });
    expect(changed.body.code).toBe(0);
    for (const token of [body.data.access_token, other.body.data.access_token]) {
      expectError(await platform.api.get('/api/v2/client/auth/me', { token }), 40100, 401);
    }
    const login = await platform.api.post('/api/v2/client/login', { body: { account: 'change@example.com', password: 'second-password-1' } });
    expect(login.body.code).toBe(0);
  });

  it('an admin password change revokes admin sessions too', async () => {
    const token = await platform.rootToken();
    const role = await platform.api.post('/api/v2/admin/auth/roles', { token, body: { code: 'pw_role', name: '改密', permissions: [] } });
    await platform.api.post('/api/v2/admin/auth/admins', { token, body: { username: 'pwadmin', password: 'admin-password-1', role_id: role.body.data.id } });
    const login = await platform.api.post('/api/v2/admin/login', { body: { username: 'pwadmin', password: 'admin-password-1' } });
    const own = login.body.data.access_token;
    const res = await platform.api.post('/api/v2/admin/auth/password', { token: own, body: { old_password: 'admin-password-1', new_password: 'admin-password-2' } });
    expect(res.body.code).toBe(0);
    expectError(await platform.api.get('/api/v2/admin/auth/me', { token: own }), 40100, 401);
  });

  it('an expired or forged token is 40100', async () => {
    const forged = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIiwiYXVkIjoiYWRtaW4ifQ.c2lnbmF0dXJl';
    expectError(await platform.api.get('/api/v2/admin/auth/me', { token: forged }), 40100, 401);
  });
});

describe('surfaces and roles', () => {
  it('never accepts a client token on admin routes, nor an admin token on client routes', async () => {
    const client = (await register('surface@example.com')).body.data.access_token;
    const admin = await platform.rootToken();
    expectError(await platform.api.get('/api/v2/admin/auth/me', { token: client }), 40300, 403);
    expectError(await platform.api.get('/api/v2/client/auth/me', { token: admin }), 40300, 403);
  });

  it('a disabled client can no longer log in (40300) and loses live sessions', async () => {
    const reg = await register('disabled@example.com');
    const admin = await platform.rootToken();
    await platform.api.post(`/api/v2/admin/users/${reg.body.data.user.id}/disable`, { token: admin });
    expectError(await platform.api.get('/api/v2/client/auth/me', { token: reg.body.data.access_token }), 40100, 401);
    const login = await platform.api.post('/api/v2/client/login', { body: { account: 'disabled@example.com', password: 'client-password-1' } });
    expectError(login, 40300, 403);
    expect(login.body.message).toBe('账号已被禁用');
  });
});

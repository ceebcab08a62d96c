import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { warmAuthCache } from '../../helpers/auth-cache.js';
import { expectError } from '../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

// A long cache lifetime: anything the invalidation missed would still be served on the next request.
let platform: TestPlatform;
let root: string;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { AUTH_CACHE_TTL_MS: '60000' } });
  root = await platform.rootToken();
});
afterAll(() => platform?.close());

async function client(email: string, password = 'client-password-1') {
  const reg = await platform.api.post('/api/v2/client/register', { body: { email, password } });
  const token = reg.body.data.access_token as string;
  await warmAuthCache(platform.api, platform.deps, '/api/v2/client/auth/me', token);
  return { id: reg.body.data.user.id as number, token };
}

async function admin(username: string, permissions: string[]) {
  const role = await platform.api.post('/api/v2/admin/auth/roles', { token: root, body: { code: `${username}_role`, name: '缓存测试', permissions } });
  const created = await platform.api.post('/api/v2/admin/auth/admins', {
    token: root,
    body: { username, password: 'admin-password-1', role_id: role.body.data.id },
  });
  const login = await platform.api.post('/api/v2/admin/login', { body: { username, password: 'admin-password-1' } });
  const token = login.body.data.access_token as string;
  await warmAuthCache(platform.api, platform.deps, '/api/v2/admin/users', token);
  return { id: created.body.data.id as number, roleId: role.body.data.id as number, token };
}

describe('with the session cached, the very next request sees', () => {
  it('a logout', async () => {
    const { token } = await client('warm-logout@example.com');
    expect((await platform.api.post('/api/v2/client/auth/logout', { token })).body.code).toBe(0);
    expectError(await platform.api.get('/api/v2/client/auth/me', { token }), 40100, 401);
  });

  it('a refresh (the old token stops, the new one works)', async () => {
    const { token } = await client('warm-refresh@example.com');
    const fresh = (await platform.api.post('/api/v2/client/auth/refresh', { token })).body.data.access_token as string;
    expectError(await platform.api.get('/api/v2/client/auth/me', { token }), 40100, 401);
    expect((await platform.api.get('/api/v2/client/auth/me', { token: fresh })).body.code).toBe(0);
  });

  it('a password change', async () => {
    const { token } = await client('warm-password@example.com');
    const changed = await platform.api.post('/api/v2/client/password', {
      token,
      body: { old_password: 'client-password-1', new_password: 'client-password-2' },
    });
    expect(changed.body.code).toBe(0);
    expectError(await platform.api.get('/api/v2/client/auth/me', { token }), 40100, 401);
  });

  it('a client disabled by an admin', async () => {
    const { id, token } = await client('warm-disabled@example.com');
    expect((await platform.api.post(`/api/v2/admin/users/${id}/disable`, { token: root })).body.code).toBe(0);
    expectError(await platform.api.get('/api/v2/client/auth/me', { token }), 40100, 401);
  });

  it('an admin disabled by another admin', async () => {
    const target = await admin('warm_disabled', ['user.view']);
    expect((await platform.api.put(`/api/v2/admin/auth/admins/${target.id}`, { token: root, body: { status: 'disabled' } })).body.code).toBe(0);
    expectError(await platform.api.get('/api/v2/admin/users', { token: target.token }), 40100, 401);
  });

  it('an admin moved to a role without the permission', async () => {
    const target = await admin('warm_moved', ['user.view']);
    const empty = await platform.api.post('/api/v2/admin/auth/roles', { token: root, body: { code: 'warm_empty', name: '无权限', permissions: [] } });
    await platform.api.put(`/api/v2/admin/auth/admins/${target.id}`, { token: root, body: { role_id: empty.body.data.id } });
    expectError(await platform.api.get('/api/v2/admin/users', { token: target.token }), 40300, 403);
  });

  it('a permission removed from the role, and one granted back', async () => {
    const target = await admin('warm_role', ['user.view']);
    await platform.api.put(`/api/v2/admin/auth/roles/${target.roleId}`, { token: root, body: { permissions: [] } });
    expectError(await platform.api.get('/api/v2/admin/users', { token: target.token }), 40300, 403);
    await platform.api.put(`/api/v2/admin/auth/roles/${target.roleId}`, { token: root, body: { permissions: ['user.view'] } });
    expect((await platform.api.get('/api/v2/admin/users', { token: target.token })).body.code).toBe(0);
  });
});

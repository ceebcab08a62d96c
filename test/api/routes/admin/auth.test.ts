import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

describe('roles', () => {
  it('lists the permission catalogue with Chinese labels', async () => {
    const res = await platform.api.get('/api/v2/admin/auth/permissions', { token, query: { page_size: 100 } });
    // The spec's page object, nothing else.
    expect(Object.keys(res.body.data).sort()).toEqual(['list', 'page', 'page_size', 'total']);
    expect(res.body.data.total).toBe(res.body.data.list.length);
    const first = await platform.api.get('/api/v2/admin/auth/permissions', { token, query: { page_size: 5 } });
    expect(first.body.data).toMatchObject({ page: 1, page_size: 5, total: res.body.data.total });
    expect(first.body.data.list).toHaveLength(5);
    const codes = res.body.data.list.map((p: { code: string }) => p.code);
    expect(codes).toEqual(expect.arrayContaining(['user.recharge', 'invoice.manage', 'coupon.view', 'coupon.manage']));
    for (const p of res.body.data.list) expect(p.label).toMatch(/\p{Script=Han}/u);
  });

  it('creates and updates a role, refusing unknown permission codes', async () => {
    const bad = await platform.api.post('/api/v2/admin/auth/roles', { token, body: { code: 'finance', name: '财务', permissions: ['money.print'] } });
    expectError(bad, 42200, 422);
    expect(bad.body.data.errors.permissions[0]).toContain('money.print');
    expect(await platform.deps.db.models.AdminRole.count({ where: { code: 'finance' } })).toBe(0);

    const created = await platform.api.post('/api/v2/admin/auth/roles', {
      token,
      body: { code: 'finance', name: '财务', permissions: ['invoice.manage', 'user.recharge', 'user.recharge'] },
    });
    expect(created.body.data).toMatchObject({ code: 'finance', is_super: false, permissions: ['invoice.manage', 'user.recharge'] });
    const updated = await platform.api.put(`/api/v2/admin/auth/roles/${created.body.data.id}`, { token, body: { permissions: ['invoice.view'] } });
    expect(updated.body.data.permissions).toEqual(['invoice.view']);
    const dup = await platform.api.post('/api/v2/admin/auth/roles', { token, body: { code: 'finance', name: '财务2', permissions: [] } });
    expectError(dup, 40900, 409);
  });

  it('refuses to edit the super role', async () => {
    const roles = await platform.api.get('/api/v2/admin/auth/roles', { token });
    const superRole = roles.body.data.list.find((r: { is_super: boolean }) => r.is_super);
    const res = await platform.api.put(`/api/v2/admin/auth/roles/${superRole.id}`, { token, body: { permissions: [] } });
    expectError(res, 40900, 409);
  });
});

describe('admins', () => {
  it('creates an admin whose permissions follow the role', async () => {
    const role = await platform.api.post('/api/v2/admin/auth/roles', { token, body: { code: 'viewer', name: '只读', permissions: ['user.view'] } });
    const created = await platform.api.post('/api/v2/admin/auth/admins', {
      token,
      body: { username: 'viewer1', password: 'viewer-password-1', role_id: role.body.data.id },
    });
    expect(created.body.data).toMatchObject({ username: 'viewer1', permissions: ['user.view'], status: 'active' });
    const login = await platform.api.post('/api/v2/admin/login', { body: { username: 'viewer1', password: 'viewer-password-1' } });
    const viewer = login.body.data.access_token;
    expect((await platform.api.get('/api/v2/admin/users', { token: viewer })).body.code).toBe(0);
    expectError(await platform.api.post('/api/v2/admin/users/1/disable', { token: viewer }), 40300, 403);

    const list = await platform.api.get('/api/v2/admin/auth/admins', { token });
    expect(list.body.data.list.map((a: { username: string }) => a.username)).toContain('viewer1');
  });

  it('refuses a duplicate username and an unknown role', async () => {
    const roles = await platform.api.get('/api/v2/admin/auth/roles', { token });
    const roleId = roles.body.data.list[0].id;
    const dup = await platform.api.post('/api/v2/admin/auth/admins', { token, body: { username: 'root', password: 'password-123', role_id: roleId } });
    expectError(dup, 40900, 409);
    const noRole = await platform.api.post('/api/v2/admin/auth/admins', { token, body: { username: 'norole', password: 'password-123', role_id: 99999 } });
    expectError(noRole, 42200, 422);
    expect(noRole.body.data.errors.role_id).toEqual(['角色不存在']);
  });

  it('disabling an admin ends their sessions; an admin cannot disable themselves', async () => {
    const roles = await platform.api.get('/api/v2/admin/auth/roles', { token });
    const roleId = roles.body.data.list[0].id;
    const created = await platform.api.post('/api/v2/admin/auth/admins', { token, body: { username: 'temp1', password: 'temp-password-1', role_id: roleId } });
    const login = await platform.api.post('/api/v2/admin/login', { body: { username: 'temp1', password: 'temp-password-1' } });
    const disabled = await platform.api.put(`/api/v2/admin/auth/admins/${created.body.data.id}`, { token, body: { status: 'disabled' } });
    expect(disabled.body.data.status).toBe('disabled');
    expectError(await platform.api.get('/api/v2/admin/auth/me', { token: login.body.data.access_token }), 40100, 401);
    const relogin = await platform.api.post('/api/v2/admin/login', { body: { username: 'temp1', password: 'temp-password-1' } });
    expectError(relogin, 40300, 403);

    const me = await platform.api.get('/api/v2/admin/auth/me', { token });
    const self = await platform.api.put(`/api/v2/admin/auth/admins/${me.body.data.id}`, { token, body: { status: 'disabled' } });
    expectError(self, 40900, 409);
  });

  it('answers 40400 for an unknown admin', async () => {
    expectError(await platform.api.put('/api/v2/admin/auth/admins/99999', { token, body: { display_name: 'x' } }), 40400, 404);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flushLogs } from '../../../helpers/db-read.js';
import { expectError } from '../../../helpers/http.js';
import { registerKnownSecret } from '../../../helpers/known-secrets.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { eventually } from '../../../helpers/wait.js';

let platform: TestPlatform;
let token: string;

const USER_PASSWORD = 'first-Secret-pw-2026';
const NEW_PASSWORD = 'second-Secret-pw-2026';

beforeAll(async () => {
  registerKnownSecret(USER_PASSWORD);
  registerKnownSecret(NEW_PASSWORD);
  platform = await startTestPlatform();
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

describe('user management', () => {
  it('creates, refuses a duplicate, resets the password (ending sessions) and keeps notes', async () => {
    const created = await platform.api.post('/api/v2/admin/users', { token, body: { phone: '13800001111', password: USER_PASSWORD } });
    expect(created.body.code).toBe(0);
    const id = created.body.data.id;
    expectError(await platform.api.post('/api/v2/admin/users', { token, body: { phone: '13800001111', password: USER_PASSWORD } }), 40900, 409);
    expectError(await platform.api.post('/api/v2/admin/users', { token, body: { password: USER_PASSWORD } }), 42200, 422);
    const login = await platform.api.post('/api/v2/client/login', { body: { account: '13800001111', password: USER_PASSWORD } });
    expect(login.body.code, login.body.message).toBe(0);
    const clientToken = login.body.data.access_token;
    expect((await platform.api.get('/api/v2/client/invoices', { token: clientToken })).body.code).toBe(0);

    const reset = await platform.api.post(`/api/v2/admin/users/${id}/reset-password`, { token, body: { password: NEW_PASSWORD } });
    expect(reset.body.code).toBe(0);
    expectError(await platform.api.get('/api/v2/client/invoices', { token: clientToken }), 40100, 401);
    expectError(await platform.api.post('/api/v2/client/login', { body: { account: '13800001111', password: USER_PASSWORD } }), 40100, 401);
    expect((await platform.api.post('/api/v2/client/login', { body: { account: '13800001111', password: NEW_PASSWORD } })).body.code).toBe(0);

    const note = await platform.api.post(`/api/v2/admin/users/${id}/notes`, { token, body: { content: '电话回访过' } });
    expect(note.body.data).toMatchObject({ user_id: id, admin_name: 'root', content: '电话回访过' });
    const notes = await platform.api.get(`/api/v2/admin/users/${id}/notes`, { token });
    expect(notes.body.data.total).toBe(1);
    expectError(await platform.api.post('/api/v2/admin/users/999999/notes', { token, body: { content: 'x' } }), 40400, 404);

    const logs = await platform.api.get(`/api/v2/admin/users/${id}/logs`, { token });
    expect(logs.body.data.list.map((r: { success: boolean }) => r.success)).toEqual([true, false, true]);
    await flushLogs(platform);
    const api = await eventually(async () => {
      const found = await platform.api.get(`/api/v2/admin/users/${id}/logs`, { token, query: { type: 'api' } });
      return found.body.data.total >= 1 ? found.body.data.list : null;
    });
    // Requests carry the user only once the token is accepted; the refused one after the reset has no user.
    expect(api.map((r: { summary: string }) => r.summary)).toEqual(['GET /api/v2/client/invoices → 200']);
  });
});

describe('PUT /api/v2/admin/users/{user}', () => {
  it('refuses to remove the last way to sign in (42200 naming the field), and removes one of two', async () => {
    const { User } = platform.deps.db.models;
    const onlyEmail = await User.create({ email: 'only-email@example.com', phone: null, nickname: 'a', password_hash: 'x', status: 'active' });
    const res = await platform.api.put(`/api/v2/admin/users/${onlyEmail.id}`, { token, body: { email: null } });
    expectError(res, 42200, 422);
    expect(res.body.data.errors.email[0]).toMatch(/邮箱和手机号不能同时为空/);
    const onlyPhone = await User.create({ email: null, phone: '13900009999', nickname: 'b', password_hash: 'x', status: 'active' });
    const both = await platform.api.put(`/api/v2/admin/users/${onlyPhone.id}`, { token, body: { phone: null, email: null } });
    expectError(both, 42200, 422);
    expect(Object.keys(both.body.data.errors)).toEqual(['email']);
    const swapped = await platform.api.put(`/api/v2/admin/users/${onlyPhone.id}`, { token, body: { phone: null, email: 'now-email@example.com' } });
    expect(swapped.body.data).toMatchObject({ email: 'now-email@example.com', phone: null });
    expect(await User.findByPk(onlyPhone.id)).toMatchObject({ email: 'now-email@example.com', phone: null });
    expect((await User.findByPk(onlyEmail.id))?.email).toBe('only-email@example.com');
  });
});

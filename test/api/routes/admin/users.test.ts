import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.rootToken();
  const { User } = platform.deps.db.models;
  await User.bulkCreate(
    Array.from({ length: 25 }, (_, i) => ({
      email: `user${String(i).padStart(2, '0')}@example.com`,
      phone: i % 5 === 0 ? `1390000${String(i).padStart(4, '0')}` : null,
      nickname: i === 7 ? '张三' : `user${i}`,
      password_hash: 'x',
      status: i % 10 === 9 ? ('disabled' as const) : ('active' as const),
    })),
  );
});
afterAll(() => platform?.close());

describe('GET /api/v2/admin/users', () => {
  it('pages through users, newest first by default', async () => {
    const first = await platform.api.get('/api/v2/admin/users', { token, query: { page_size: 10 } });
    expect(first.body.data).toMatchObject({ total: 25, page: 1, page_size: 10 });
    expect(first.body.data.list).toHaveLength(10);
    expect(first.body.data.list[0].email).toBe('user24@example.com');
    const third = await platform.api.get('/api/v2/admin/users', { token, query: { page_size: 10, page: 3 } });
    expect(third.body.data.list).toHaveLength(5);
    expect(Object.keys(first.body.data.list[0])).not.toContain('password_hash');
  });

  it('searches by e-mail, phone and nickname', async () => {
    const byNick = await platform.api.get('/api/v2/admin/users', { token, query: { keyword: '张三' } });
    expect(byNick.body.data.list.map((u: { email: string }) => u.email)).toEqual(['user07@example.com']);
    const byPhone = await platform.api.get('/api/v2/admin/users', { token, query: { keyword: '13900000010' } });
    expect(byPhone.body.data.total).toBe(1);
    const wildcard = await platform.api.get('/api/v2/admin/users', { token, query: { keyword: '%' } });
    expect(wildcard.body.data.total).toBe(0);
  });

  it('filters by status and sorts by a whitelisted key', async () => {
    const disabled = await platform.api.get('/api/v2/admin/users', { token, query: { status: 'disabled' } });
    expect(disabled.body.data.total).toBe(2);
    const asc = await platform.api.get('/api/v2/admin/users', { token, query: { sort: 'id', page_size: 1 } });
    expect(asc.body.data.list[0].email).toBe('user00@example.com');
    expectError(await platform.api.get('/api/v2/admin/users', { token, query: { status: 'gone' } }), 42200, 422);
  });
});

describe('user detail and status', () => {
  it('shows one user and answers 40400 for a missing one', async () => {
    const list = await platform.api.get('/api/v2/admin/users', { token, query: { keyword: 'user03@' } });
    const id = list.body.data.list[0].id;
    const detail = await platform.api.get(`/api/v2/admin/users/${id}`, { token });
    expect(detail.body.data).toMatchObject({ id, email: 'user03@example.com', status: 'active' });
    expectError(await platform.api.get('/api/v2/admin/users/999999', { token }), 40400, 404);
    expectError(await platform.api.get('/api/v2/admin/users/abc', { token }), 42200, 422);
  });

  it('disables and enables a user', async () => {
    const list = await platform.api.get('/api/v2/admin/users', { token, query: { keyword: 'user04@' } });
    const id = list.body.data.list[0].id;
    expect((await platform.api.post(`/api/v2/admin/users/${id}/disable`, { token })).body.data.status).toBe('disabled');
    expect((await platform.deps.db.models.User.findByPk(id))?.status).toBe('disabled');
    expect((await platform.api.post(`/api/v2/admin/users/${id}/enable`, { token })).body.data.status).toBe('active');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessToken } from '../../../helpers/access-tokens.js';
import { registerClient } from '../../../helpers/billing.js';
import { expectError } from '../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

describe('personal access tokens for admins', () => {
  it('are listed by an admin (filtered by user) and revoked by one; a disabled user\'s tokens stop too', async () => {
    const root = await platform.rootToken();
    const client = await registerClient(platform);
    const kept = await createAccessToken(platform, client, { name: '保留', scopes: ['read'] });
    const doomed = await createAccessToken(platform, client, { name: '吊销', scopes: ['read', 'purchase'] });
    const bystander = await registerClient(platform);
    await createAccessToken(platform, bystander, { scopes: ['read'] });

    const listed = await platform.api.get('/api/v2/admin/access-tokens', { token: root, query: { user_id: client.id } });
    expect(Object.keys(listed.body.data).sort()).toEqual(['list', 'page', 'page_size', 'total']);
    expect(listed.body.data.list.map((t: { id: number }) => t.id)).toEqual([doomed.id, kept.id]);
    expect(listed.raw).not.toContain(doomed.secret);

    const revoked = await platform.api.del(`/api/v2/admin/access-tokens/${doomed.id}`, { token: root });
    expect(revoked.body.data).toMatchObject({ id: doomed.id, status: 'revoked', revoked_by_type: 'admin' });
    expect((await platform.deps.db.models.PersonalAccessToken.findByPk(doomed.id))?.revoked_at).toBeInstanceOf(Date);
    expectError(await platform.api.get('/api/v2/client/balance', { token: doomed.token }), 40100, 401);
    const active = await platform.api.get('/api/v2/admin/access-tokens', { token: root, query: { user_id: client.id, status: 'active' } });
    expect(active.body.data.list.map((t: { id: number }) => t.id)).toEqual([kept.id]);
    expectError(await platform.api.del('/api/v2/admin/access-tokens/2147483647', { token: root }), 40400, 404);

    expect((await platform.api.get('/api/v2/client/balance', { token: kept.token })).body.code).toBe(0);
    await platform.api.post(`/api/v2/admin/users/${client.id}/disable`, { token: root });
    const disabled = await platform.api.get('/api/v2/client/balance', { token: kept.token });
    expectError(disabled, 40300, 403);
    expect(disabled.body.message).toBe('账号已被禁用');
  });

  it('refuse a malformed user filter with 42200 and a Chinese message', async () => {
    const root = await platform.rootToken();
    for (const userId of ['0x10', '-1', '2147483648']) {
      const res = await platform.api.get('/api/v2/admin/access-tokens', { token: root, query: { user_id: userId } });
      expectError(res, 42200, 422);
      expect(Object.keys(res.body.data.errors)).toEqual(['user_id']);
    }
  });
});

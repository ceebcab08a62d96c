import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient, type TestClient } from '../../../helpers/billing.js';
import { type Articles, createArticles } from '../../../helpers/content.js';
import { expectError } from '../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;
let alice: TestClient;
let bob: TestClient;
let articles: Articles;

beforeAll(async () => {
  platform = await startTestPlatform();
  alice = await registerClient(platform);
  bob = await registerClient(platform);
  articles = await createArticles(platform, await platform.rootToken());
});
afterAll(() => platform?.close());

describe('notices and help articles for clients', () => {
  it('keeps read state per client and counts unread notices in the overview', async () => {
    const { published, draft, help } = articles;
    const first = await platform.api.get('/api/v2/client/notices', { token: alice.token });
    expect(first.body.data.list).toEqual([expect.objectContaining({ id: published, is_read: false })]);
    const overview = await platform.api.get('/api/v2/client/content/overview', { token: alice.token });
    expect(overview.body.data).toMatchObject({ unread_notice_count: 1, open_ticket_count: 0 });
    expect(overview.body.data.pinned_help_articles.map((a: { id: number }) => a.id)).toEqual([help]);
    expect((await platform.api.get(`/api/v2/client/notices/${published}`, { token: alice.token })).body.data.is_read).toBe(true);
    expect((await platform.api.get('/api/v2/client/content/overview', { token: alice.token })).body.data.unread_notice_count).toBe(0);
    // Bob's state is his own.
    expect((await platform.api.get('/api/v2/client/content/overview', { token: bob.token })).body.data.unread_notice_count).toBe(1);
    expect((await platform.api.post(`/api/v2/client/notices/${published}/read`, { token: bob.token })).body.data).toEqual({ id: published, is_read: true });
    expect((await platform.api.get('/api/v2/client/notices', { token: bob.token })).body.data.list).toEqual([expect.objectContaining({ id: published, is_read: true })]);
    expectError(await platform.api.post(`/api/v2/client/notices/${draft}/read`, { token: bob.token }), 40400, 404);
    expectError(await platform.api.get(`/api/v2/client/help-articles/${draft}`, { token: bob.token }), 40400, 404);
    expect((await platform.api.get(`/api/v2/client/help-articles/${help}`, { token: bob.token })).body.data.title).toBe('如何重置密码');
  });

  it('lists the published help articles by category and refuses bad filters and anonymous callers', async () => {
    const list = await platform.api.get('/api/v2/client/help-articles', { token: alice.token, query: { category_id: articles.helpCategory } });
    expect(list.body.data.list.map((a: { id: number }) => a.id)).toEqual([articles.help]);
    expectError(await platform.api.get('/api/v2/client/help-articles', { token: alice.token, query: { category_id: 'abc' } }), 42200, 422);
    expectError(await platform.api.get('/api/v2/client/notices'), 40100, 401);
  });
});

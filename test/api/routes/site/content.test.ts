import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Articles, createArticles } from '../../../helpers/content.js';
import { expectError } from '../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { PNG_1X1, uploadFile, viewLink } from '../../../helpers/uploads.js';

let platform: TestPlatform;
let root: string;
let articles: Articles;

beforeAll(async () => {
  platform = await startTestPlatform();
  root = await platform.rootToken();
  articles = await createArticles(platform, root);
});
afterAll(() => platform?.close());

describe('site notices and help articles', () => {
  it('shows the site published notices only, with an excerpt in lists and the plain body in the detail', async () => {
    const { noticeCategory, helpCategory, published, draft, future, help } = articles;
    const list = await platform.api.get('/api/v2/site/notices');
    expect(list.body.data.list.map((a: { id: number }) => a.id)).toEqual([published]);
    const [item] = list.body.data.list;
    expect(item).not.toHaveProperty('body');
    expect(item.excerpt.length).toBeLessThanOrEqual(120);
    expect(item.category).toEqual({ id: noticeCategory, name: '系统公告' });
    const detail = await platform.api.get(`/api/v2/site/notices/${published}`);
    expect(detail.body.data.body).toContain('<img src=x onerror=alert(1)>');
    for (const id of [draft, future, help, 999_999]) expectError(await platform.api.get(`/api/v2/site/notices/${id}`), 40400, 404);
    expectError(await platform.api.get(`/api/v2/site/help-articles/${published}`), 40400, 404);
    const helpList = await platform.api.get('/api/v2/site/help-articles', { query: { category_id: helpCategory } });
    expect(helpList.body.data.list.map((a: { id: number }) => a.id)).toEqual([help]);
    const categories = await platform.api.get('/api/v2/site/notices/categories');
    expect(categories.body.data).toEqual({ list: [expect.objectContaining({ id: noticeCategory, article_count: 1 })], total: 1, page: 1, page_size: 20 });
    const pastTheEnd = await platform.api.get('/api/v2/site/notices/categories', { query: { page: 2, page_size: 1 } });
    expect(pastTheEnd.body.data).toEqual({ list: [], total: 1, page: 2, page_size: 1 });
    const bad = await platform.api.get('/api/v2/site/notices', { query: { keyword: 'x'.repeat(101) } });
    expectError(bad, 42200, 422);
    expect(bad.body.data.errors.keyword).toEqual(['关键词最多 100 个字符']);
  });
});

describe('home hero', () => {
  it('is saved by an admin, shown by the site, and reflected by the cached home page at once', async () => {
    const image = await uploadFile(platform, '/api/v2/admin/content/upload-image', root, PNG_1X1, 'banner.png');
    const before = await platform.api.get('/api/v2/site/home');
    expect(before.body.code).toBe(0);
    const saved = await platform.api.post('/api/v2/admin/site/home-hero', {
      token: root,
      body: { title: '双十一特惠', subtitle: '全场云服务器 5 折', image_asset_id: image.body.data.asset_id, cta_label: '立即选购', cta_url: '/products', visible: true },
    });
    expect(saved.body.data).toMatchObject({ title: '双十一特惠', image_asset_id: image.body.data.asset_id, visible: true });
    const site = await platform.api.get('/api/v2/site/home-hero');
    expect(site.body.data).toMatchObject({ title: '双十一特惠', cta_url: '/products' });
    expect((await viewLink(platform, site.body.data.image_url)).status).toBe(200);
    const home = await platform.api.get('/api/v2/site/home');
    expect(home.body.data.hero).toMatchObject({ title: '双十一特惠', visible: true });

    await platform.api.post('/api/v2/admin/site/home-hero', { token: root, body: { title: '新标题', visible: false } });
    expect((await platform.api.get('/api/v2/site/home')).body.data.hero).toMatchObject({ title: '新标题', visible: false, image_url: null });
    expect((await platform.api.get('/api/v2/site/home-hero')).body.data.title).toBe('新标题');
  });
});

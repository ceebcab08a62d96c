import { expect } from 'vitest';
import type { TestPlatform } from './platform.js';

export type Articles = { noticeCategory: number; helpCategory: number; published: number; draft: number; future: number; help: number };

/**
 * Content made through the admin API, as the notice and help tests of the admin, client and site
 * routes read it: a notice category and a help category, a published notice (long, with markup),
 * a draft notice, a notice published in 2099 and a pinned published help article.
 */
export async function createArticles(platform: TestPlatform, root: string): Promise<Articles> {
  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await platform.api.post(path, { token: root, body });
    expect(res.body.code, res.body.message).toBe(0);
    return res.body.data.id as number;
  };
  const noticeCategory = await post('/api/v2/admin/content/categories', { kind: 'notice', name: '系统公告' });
  const helpCategory = await post('/api/v2/admin/content/categories', { kind: 'help', name: '新手入门', sort_order: 1 });
  const article = (body: Record<string, unknown>) => post('/api/v2/admin/content/articles', body);
  return {
    noticeCategory,
    helpCategory,
    published: await article({ kind: 'notice', category_id: noticeCategory, title: '机房维护通知', body: `维护时间：今晚。\n${'详细说明。'.repeat(100)}<img src=x onerror=alert(1)>`, status: 'published' }),
    draft: await article({ kind: 'notice', title: '草稿公告', body: '未发布', status: 'draft' }),
    future: await article({ kind: 'notice', title: '定时公告', body: '将来发布', status: 'published', published_at: '2099-01-01 00:00:00' }),
    help: await article({ kind: 'help', category_id: helpCategory, title: '如何重置密码', body: '步骤一……', status: 'published', pinned: true }),
  };
}

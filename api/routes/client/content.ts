import { z } from '@hono/zod-openapi';
import type { ArticleKind } from '../../../db/models/support.js';
import { getArticle, listArticles, markNoticeRead, readNoticeIds, unreadNoticeCount } from '../../../domain/content/articles.js';
import { openTicketCount } from '../../../domain/support/tickets.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { articleDetailResource, articleDetailSchema, articleItemResource, articleItemSchema } from '../../resources/support.js';
import { idParam } from '../../schemas.js';
import { articleListQuery } from '../site/content.js';

const tags = ['客户端：公告与帮助'];
const access = { surface: 'client' } as const;

const noticeItemSchema = articleItemSchema.extend({ is_read: z.boolean() }).openapi('ClientNoticeItem');
const noticeDetailSchema = articleDetailSchema.extend({ is_read: z.boolean() }).openapi('ClientNoticeDetail');

const notices = defineRoute({
  method: 'get',
  path: '/api/v2/client/notices',
  tags,
  summary: '公告列表（含已读状态）',
  access,
  request: { query: articleListQuery },
  data: pageSchema(noticeItemSchema),
});

const notice = defineRoute({
  method: 'get',
  path: '/api/v2/client/notices/{id}',
  tags,
  summary: '公告详情（查看即标记为已读）',
  access,
  request: { params: idParam('id') },
  data: noticeDetailSchema,
});

const markRead = defineRoute({
  method: 'post',
  path: '/api/v2/client/notices/{id}/read',
  tags,
  summary: '标记公告已读',
  access,
  request: { params: idParam('id') },
  data: z.object({ id: z.number().int(), is_read: z.literal(true) }),
});

const helpList = defineRoute({
  method: 'get',
  path: '/api/v2/client/help-articles',
  tags,
  summary: '帮助文章列表',
  access,
  request: { query: articleListQuery },
  data: pageSchema(articleItemSchema),
});

const helpDetail = defineRoute({
  method: 'get',
  path: '/api/v2/client/help-articles/{id}',
  tags,
  summary: '帮助文章详情',
  access,
  request: { params: idParam('id') },
  data: articleDetailSchema,
});

const OVERVIEW_NOTICES = 5;
const OVERVIEW_HELP = 5;

const overview = defineRoute({
  method: 'get',
  path: '/api/v2/client/content/overview',
  tags,
  summary: '用户中心内容概览',
  description: `最新 ${OVERVIEW_NOTICES} 条公告（含已读状态）、未读公告数、置顶帮助文章（最多 ${OVERVIEW_HELP} 篇）与本人未关闭的工单数。`,
  access,
  data: z
    .object({
      latest_notices: z.array(noticeItemSchema),
      unread_notice_count: z.number().int(),
      pinned_help_articles: z.array(articleItemSchema),
      open_ticket_count: z.number().int().openapi({ description: '未关闭的工单数（待处理、已回复、客户已回复）' }),
    })
    .openapi('ClientContentOverview'),
});

const kind: ArticleKind = 'notice';

export const clientContentRoutes = createRouter()
  .openapi(notices, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listArticles(c.var.deps, { ...query, kind }, true);
    const read = await readNoticeIds(c.var.deps, c.var.client.id, rows.map((r) => r.id));
    return ok(c, page(rows.map((r) => ({ ...articleItemResource(r), is_read: read.has(r.id) })), total, query));
  })
  .openapi(notice, async (c) => {
    const row = await getArticle(c.var.deps, c.req.valid('param').id, { kind, liveOnly: true });
    await markNoticeRead(c.var.deps, c.var.client.id, row.id);
    return ok(c, { ...articleDetailResource(row), is_read: true });
  })
  .openapi(markRead, async (c) => {
    const row = await getArticle(c.var.deps, c.req.valid('param').id, { kind, liveOnly: true });
    await markNoticeRead(c.var.deps, c.var.client.id, row.id);
    return ok(c, { id: row.id, is_read: true as const }, '已标记为已读');
  })
  .openapi(helpList, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listArticles(c.var.deps, { ...query, kind: 'help' }, true);
    return ok(c, page(rows.map(articleItemResource), total, query));
  })
  .openapi(helpDetail, async (c) => ok(c, articleDetailResource(await getArticle(c.var.deps, c.req.valid('param').id, { kind: 'help', liveOnly: true }))))
  .openapi(overview, async (c) => {
    const deps = c.var.deps;
    const userId = c.var.client.id;
    const [latest, help, unread, openTickets] = await Promise.all([
      listArticles(deps, { page: 1, page_size: OVERVIEW_NOTICES, kind }, true),
      listArticles(deps, { page: 1, page_size: OVERVIEW_HELP, kind: 'help', pinned: true }, true),
      unreadNoticeCount(deps, userId),
      openTicketCount(deps, userId),
    ]);
    const read = await readNoticeIds(deps, userId, latest.rows.map((r) => r.id));
    return ok(c, {
      latest_notices: latest.rows.map((r) => ({ ...articleItemResource(r), is_read: read.has(r.id) })),
      unread_notice_count: unread,
      pinned_help_articles: help.rows.map(articleItemResource),
      open_ticket_count: openTickets,
    });
  });

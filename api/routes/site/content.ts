import { z } from '@hono/zod-openapi';
import type { ArticleKind } from '../../../db/models/support.js';
import { getArticle, listArticles, listCategories } from '../../../domain/content/articles.js';
import { getHomeHero } from '../../../domain/content/home-hero.js';
import { cachedData, okCached, present } from '../../cached-envelope.js';
import { ok, page, pageOfAll, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { articleDetailResource, articleDetailSchema, articleItemResource, articleItemSchema, categoryResource, categorySchema, heroResource, heroSchema } from '../../resources/support.js';
import { idParam, idQuery, listQuery } from '../../schemas.js';

const tags = ['站点：公告与帮助'];
const open = { surface: 'public' } as const;

const LABEL: Record<ArticleKind, string> = { notice: '公告', help: '帮助文章' };
const PATH: Record<ArticleKind, string> = { notice: 'notices', help: 'help-articles' };

export const articleListQuery = listQuery({
  category_id: idQuery().optional(),
  keyword: z.string().max(100, { error: '关键词最多 100 个字符' }).optional(),
});

function articleRoutes(kind: ArticleKind) {
  return {
    list: defineRoute({
      method: 'get',
      path: `/api/v2/site/${PATH[kind]}`,
      tags,
      summary: `${LABEL[kind]}列表（已发布）`,
      description: '置顶在前；列表只含摘要 excerpt，正文见详情。',
      access: open,
      request: { query: articleListQuery },
      data: pageSchema(articleItemSchema),
    }),
    categories: defineRoute({
      method: 'get',
      path: `/api/v2/site/${PATH[kind]}/categories`,
      tags,
      summary: `${LABEL[kind]}分类`,
      description: 'article_count 为分类下已发布的文章数。',
      access: open,
      request: { query: listQuery({}) },
      data: pageSchema(categorySchema),
    }),
    detail: defineRoute({
      method: 'get',
      path: `/api/v2/site/${PATH[kind]}/{id}`,
      tags,
      summary: `${LABEL[kind]}详情`,
      access: open,
      request: { params: idParam('id') },
      data: articleDetailSchema,
    }),
  };
}

const notices = articleRoutes('notice');
const help = articleRoutes('help');

const hero = defineRoute({
  method: 'get',
  path: '/api/v2/site/home-hero',
  tags,
  summary: '首页横幅',
  description: 'visible 为 false 时前端不显示。image_url 为签名的短期公开链接。',
  access: open,
  data: heroSchema,
});

function routesFor(router: ReturnType<typeof createRouter>, kind: ArticleKind, r: ReturnType<typeof articleRoutes>) {
  return router
    .openapi(r.categories, async (c) => ok(c, pageOfAll((await listCategories(c.var.deps, kind, true)).map(categoryResource), c.req.valid('query'))))
    .openapi(r.list, async (c) => {
      const query = c.req.valid('query');
      const { rows, total } = await listArticles(c.var.deps, { ...query, kind }, true);
      return ok(c, page(rows.map(articleItemResource), total, query));
    })
    .openapi(r.detail, async (c) => ok(c, articleDetailResource(await getArticle(c.var.deps, c.req.valid('param').id, { kind, liveOnly: true }))));
}

/** The hero as the site shows it, through the catalogue cache (dropped on every hero save). */
export async function cachedHero(deps: Parameters<typeof getHomeHero>[0]) {
  return heroResource(deps, await getHomeHero(deps));
}

export const siteContentRoutes = routesFor(routesFor(createRouter(), 'notice', notices), 'help', help).openapi(hero, async (c) => {
  const data = await cachedData(c.var.deps, 'home-hero', () => cachedHero(c.var.deps));
  return okCached(c, present(data));
});

import { z } from '@hono/zod-openapi';
import { ARTICLE_KINDS, ARTICLE_STATUSES } from '../../../db/models/support.js';
import {
  createArticle,
  createCategory,
  deleteArticle,
  deleteCategory,
  getArticle,
  listArticles,
  listCategories,
  updateArticle,
  updateCategory,
} from '../../../domain/content/articles.js';
import { getHomeHero, saveHomeHero } from '../../../domain/content/home-hero.js';
import { ErrorCode } from '../../../lib/errors.js';
import { parseDateTime } from '../../../lib/time.js';
import { formatDateTime } from '../../../lib/time.js';
import { ok, page, pageOfAll, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import {
  adminArticleItemResource,
  adminArticleItemSchema,
  adminArticleResource,
  adminArticleSchema,
  adminHeroSchema,
  categoryResource,
  categorySchema,
  heroResource,
} from '../../resources/support.js';
import { boolQuery, idInput, idParam, idQuery, jsonBody, listQuery } from '../../schemas.js';

const tags = ['管理端：内容'];
const view = { surface: 'admin', permission: 'content.view' } as const;
const manage = { surface: 'admin', permission: 'content.manage' } as const;

const publishedAt = z
  .string()
  .max(19)
  .transform((value, ctx) => {
    const date = parseDateTime(value);
    if (!date) {
      ctx.addIssue({ code: 'custom', message: '发布时间格式应为 YYYY-MM-DD HH:mm:ss' });
      return z.NEVER;
    }
    return date;
  })
  .openapi({ type: 'string', example: '2026-01-01 08:00:00', description: '发布时间（北京时间）；留空则发布时取当前时间，未来时间表示定时发布' });

const articleFields = {
  category_id: idInput('分类编号必须是正整数').nullable().optional(),
  title: z.string().trim().min(1, { error: '标题不能为空' }).max(120, { error: '标题最多 120 个字符' }),
  body: z.string().max(50_000, { error: '正文最多 50000 个字符' }).openapi({ description: '纯文本正文（保留换行，不作为 HTML 渲染）' }),
  status: z.enum(ARTICLE_STATUSES, { error: '状态只能是 draft 或 published' }),
  published_at: publishedAt.nullable().optional(),
  pinned: z.boolean().optional(),
  sort_order: z.number().int().min(-100_000).max(100_000).optional(),
};

const articleList = defineRoute({
  method: 'get',
  path: '/api/v2/admin/content/articles',
  tags,
  summary: '公告与帮助文章列表',
  description: '筛选：kind（notice 公告 / help 帮助）、status、category_id、pinned、keyword（标题）；列表只含摘要 excerpt。',
  access: view,
  request: {
    query: listQuery({
      kind: z.enum(ARTICLE_KINDS).optional(),
      status: z.enum(ARTICLE_STATUSES).optional(),
      category_id: idQuery().optional(),
      pinned: boolQuery.optional(),
      keyword: z.string().max(100, { error: '关键词最多 100 个字符' }).optional(),
    }),
  },
  data: pageSchema(adminArticleItemSchema),
});

const articleDetail = defineRoute({
  method: 'get',
  path: '/api/v2/admin/content/articles/{article}',
  tags,
  summary: '文章详情',
  access: view,
  request: { params: idParam('article') },
  data: adminArticleSchema,
});

const articleCreate = defineRoute({
  method: 'post',
  path: '/api/v2/admin/content/articles',
  tags,
  summary: '新建公告或帮助文章',
  access: manage,
  request: jsonBody(z.object({ kind: z.enum(ARTICLE_KINDS, { error: '类型只能是 notice 或 help' }), ...articleFields }).strict()),
  data: adminArticleSchema,
});

const articleUpdate = defineRoute({
  method: 'put',
  path: '/api/v2/admin/content/articles/{article}',
  tags,
  summary: '修改文章（类型不可修改）',
  access: manage,
  request: { params: idParam('article'), ...jsonBody(z.object(articleFields).partial().strict()) },
  data: adminArticleSchema,
});

const articleDelete = defineRoute({
  method: 'delete',
  path: '/api/v2/admin/content/articles/{article}',
  tags,
  summary: '删除文章',
  access: manage,
  request: { params: idParam('article') },
  data: z.null(),
});

const categoryList = defineRoute({
  method: 'get',
  path: '/api/v2/admin/content/categories',
  tags,
  summary: '文章分类列表',
  access: view,
  request: { query: listQuery({ kind: z.enum(ARTICLE_KINDS).optional() }) },
  data: pageSchema(categorySchema),
});

const categoryFields = {
  name: z.string().trim().min(1, { error: '名称不能为空' }).max(64, { error: '名称最多 64 个字符' }),
  sort_order: z.number().int().min(-100_000).max(100_000).optional(),
};

const categoryCreate = defineRoute({
  method: 'post',
  path: '/api/v2/admin/content/categories',
  tags,
  summary: '新建文章分类',
  access: manage,
  request: jsonBody(z.object({ kind: z.enum(ARTICLE_KINDS, { error: '类型只能是 notice 或 help' }), ...categoryFields }).strict()),
  data: categorySchema,
});

const categoryUpdate = defineRoute({
  method: 'put',
  path: '/api/v2/admin/content/categories/{category}',
  tags,
  summary: '修改文章分类',
  access: manage,
  request: { params: idParam('category'), ...jsonBody(z.object(categoryFields).partial().strict()) },
  data: categorySchema,
});

const categoryDelete = defineRoute({
  method: 'delete',
  path: '/api/v2/admin/content/categories/{category}',
  tags,
  summary: '删除文章分类（分类下还有文章时不能删除）',
  access: manage,
  request: { params: idParam('category') },
  data: z.null(),
  errors: [ErrorCode.IN_USE],
});

const heroGet = defineRoute({
  method: 'get',
  path: '/api/v2/admin/site/home-hero',
  tags,
  summary: '首页横幅',
  access: view,
  data: adminHeroSchema,
});

const heroSave = defineRoute({
  method: 'post',
  path: '/api/v2/admin/site/home-hero',
  tags,
  summary: '保存首页横幅',
  description: 'image_asset_id 为上传图片接口返回的 asset_id（或 null）；cta_url 为站内路径（以 / 开头）或 https 链接。保存后首页缓存即时失效。',
  access: manage,
  request: jsonBody(
    z
      .object({
        title: z.string().trim().max(80, { error: '标题最多 80 个字符' }),
        subtitle: z.string().trim().max(200, { error: '副标题最多 200 个字符' }).default(''),
        image_asset_id: z.string().regex(/^[0-9a-f]{32}$/, { error: '图片编号格式不正确' }).nullable().default(null),
        cta_label: z.string().trim().max(32, { error: '按钮文字最多 32 个字符' }).default(''),
        cta_url: z
          .string()
          .trim()
          .max(255, { error: '链接最多 255 个字符' })
          .refine((v) => v === '' || /^\/(?!\/)[^\s\\]*$/.test(v) || /^https:\/\/[^\s\\/]+(\/[^\s\\]*)?$/i.test(v), {
            error: '链接须为站内路径（以 / 开头）或 https 链接',
          })
          .default(''),
        visible: z.boolean({ error: 'visible 必须是布尔值' }),
      })
      .strict(),
  ),
  data: adminHeroSchema,
});

async function categoryById(deps: Parameters<typeof listCategories>[0], id: number) {
  const found = (await listCategories(deps, null, false)).find((r) => r.id === id);
  return found ? categoryResource(found) : null;
}

export const adminContentRoutes = createRouter()
  .openapi(articleList, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listArticles(c.var.deps, query, false);
    return ok(c, page(rows.map(adminArticleItemResource), total, query));
  })
  .openapi(articleDetail, async (c) => ok(c, adminArticleResource(await getArticle(c.var.deps, c.req.valid('param').article, { liveOnly: false }))))
  .openapi(articleCreate, async (c) => {
    const id = await createArticle(c.var.deps, c.req.valid('json'));
    return ok(c, adminArticleResource(await getArticle(c.var.deps, id, { liveOnly: false })), '已创建');
  })
  .openapi(articleUpdate, async (c) => {
    const { article } = c.req.valid('param');
    await updateArticle(c.var.deps, article, c.req.valid('json'));
    return ok(c, adminArticleResource(await getArticle(c.var.deps, article, { liveOnly: false })), '已保存');
  })
  .openapi(articleDelete, async (c) => {
    await deleteArticle(c.var.deps, c.req.valid('param').article);
    return ok(c, null, '已删除');
  })
  .openapi(categoryList, async (c) => {
    const query = c.req.valid('query');
    return ok(c, pageOfAll((await listCategories(c.var.deps, query.kind ?? null, false)).map(categoryResource), query));
  })
  .openapi(categoryCreate, async (c) => {
    const id = await createCategory(c.var.deps, c.req.valid('json'));
    return ok(c, (await categoryById(c.var.deps, id)) as NonNullable<Awaited<ReturnType<typeof categoryById>>>, '已创建');
  })
  .openapi(categoryUpdate, async (c) => {
    const { category } = c.req.valid('param');
    await updateCategory(c.var.deps, category, c.req.valid('json'));
    return ok(c, (await categoryById(c.var.deps, category)) as NonNullable<Awaited<ReturnType<typeof categoryById>>>, '已保存');
  })
  .openapi(categoryDelete, async (c) => {
    await deleteCategory(c.var.deps, c.req.valid('param').category);
    return ok(c, null, '已删除');
  })
  .openapi(heroGet, async (c) => {
    const hero = await getHomeHero(c.var.deps);
    return ok(c, { ...heroResource(c.var.deps, hero), updated_at: formatDateTime(hero.updated_at) });
  })
  .openapi(heroSave, async (c) => {
    const hero = await saveHomeHero(c.var.deps, c.req.valid('json'));
    return ok(c, { ...heroResource(c.var.deps, hero), updated_at: formatDateTime(hero.updated_at) }, '已保存');
  });

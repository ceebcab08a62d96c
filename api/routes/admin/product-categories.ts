import { z } from '@hono/zod-openapi';
import { CATEGORY_SORT_KEYS, createCategory, deleteCategory, getCategory, listCategories, updateCategory } from '../../../domain/catalogue/categories.js';
import { reorderDirectory } from '../../../domain/catalogue/reorder.js';
import { ErrorCode } from '../../../lib/errors.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { categoryResource, categorySchema, reorderResultSchema } from '../../resources/catalogue.js';
import { boolQuery, idParam, idQuery, jsonBody, listQuery, sortQuery } from '../../schemas.js';
import { descriptionInput, nameInput, operatorOf, parentIdInput, reorderBody, sortOrderInput, visibleInput } from './catalogue-inputs.js';

const tags = ['管理端：商品目录'];
const base = '/api/v2/admin/product-categories';
const view = { surface: 'admin', permission: 'product.view' } as const;
const manage = { surface: 'admin', permission: 'product.manage' } as const;

const list = defineRoute({
  method: 'get',
  path: base,
  tags,
  summary: '三级分类列表',
  description: '可按 second_product_group_id（二级分组）或 first_product_group_id（一级菜单）筛选；sort 可选 sort_order（默认）、id、name、created_at。',
  access: view,
  request: {
    query: listQuery({
      second_product_group_id: idQuery().optional(),
      first_product_group_id: idQuery().optional(),
      is_visible: boolQuery.optional(),
      keyword: z.string().max(64).optional(),
      sort: sortQuery(CATEGORY_SORT_KEYS).optional(),
    }),
  },
  data: pageSchema(categorySchema),
});

const reorder = defineRoute({
  method: 'post',
  path: `${base}/reorders`,
  tags,
  summary: '三级分类排序',
  access: manage,
  request: jsonBody(reorderBody),
  data: reorderResultSchema,
});

const detail = defineRoute({
  method: 'get',
  path: `${base}/{category}`,
  tags,
  summary: '三级分类详情',
  access: view,
  request: { params: idParam('category') },
  data: categorySchema,
});

const categoryBody = z.object({
  second_product_group_id: parentIdInput('二级分组'),
  name: nameInput,
  description: descriptionInput.optional(),
  is_visible: visibleInput.optional(),
  sort_order: sortOrderInput.optional(),
});

const create = defineRoute({
  method: 'post',
  path: base,
  tags,
  summary: '创建三级分类',
  description: '不传 sort_order 时排在同一分组的最后。',
  access: manage,
  request: jsonBody(categoryBody),
  data: categorySchema,
});

const update = defineRoute({
  method: 'put',
  path: `${base}/{category}`,
  tags,
  summary: '修改三级分类（可移动到其他二级分组）',
  description:
    '只修改提交的字段。修改 second_product_group_id 会在同一事务内把分类下所有未删除商品的二级分组、一级菜单与类型改为新分组的，并逐个记录变更；移入 other 类型菜单时，若有商品未绑定已启用的上游插件则 42200。',
  access: manage,
  request: { params: idParam('category'), ...jsonBody(categoryBody.partial()) },
  data: categorySchema,
});

const remove = defineRoute({
  method: 'delete',
  path: `${base}/{category}`,
  tags,
  summary: '删除三级分类',
  description: '分类下仍有商品时拒绝（40901，data 为 {products}）。',
  access: manage,
  request: { params: idParam('category') },
  data: z.null(),
  errors: [ErrorCode.IN_USE],
});

export const adminProductCategoryRoutes = createRouter()
  .openapi(reorder, async (c) => ok(c, { list: await reorderDirectory(c.var.deps, 'category', c.req.valid('json').items, operatorOf(c)) }, '排序已保存'))
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listCategories(c.var.deps, query);
    return ok(c, page(rows.map(categoryResource), total, query));
  })
  .openapi(detail, async (c) => ok(c, categoryResource(await getCategory(c.var.deps, c.req.valid('param').category))))
  .openapi(create, async (c) => ok(c, categoryResource(await createCategory(c.var.deps, c.req.valid('json'), operatorOf(c))), '三级分类已创建'))
  .openapi(update, async (c) => ok(c, categoryResource(await updateCategory(c.var.deps, c.req.valid('param').category, c.req.valid('json'), operatorOf(c))), '三级分类已修改'))
  .openapi(remove, async (c) => {
    await deleteCategory(c.var.deps, c.req.valid('param').category, operatorOf(c));
    return ok(c, null, '三级分类已删除');
  });

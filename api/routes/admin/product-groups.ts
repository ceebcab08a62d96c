import { z } from '@hono/zod-openapi';
import { createGroup, deleteGroup, getGroup, GROUP_SORT_KEYS, listGroups, updateGroup } from '../../../domain/catalogue/groups.js';
import { reorderDirectory } from '../../../domain/catalogue/reorder.js';
import { ErrorCode } from '../../../lib/errors.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { groupResource, groupSchema, reorderResultSchema } from '../../resources/catalogue.js';
import { boolQuery, idParam, idQuery, jsonBody, listQuery, sortQuery } from '../../schemas.js';
import { descriptionInput, nameInput, operatorOf, parentIdInput, reorderBody, sortOrderInput, visibleInput } from './catalogue-inputs.js';

const tags = ['管理端：商品目录'];
const base = '/api/v2/admin/product-groups';
const view = { surface: 'admin', permission: 'product.view' } as const;
const manage = { surface: 'admin', permission: 'product.manage' } as const;

const list = defineRoute({
  method: 'get',
  path: base,
  tags,
  summary: '二级分组列表',
  description: '可按 first_product_group_id（一级菜单）筛选；sort 可选 sort_order（默认）、id、name、created_at。',
  access: view,
  request: {
    query: listQuery({
      first_product_group_id: idQuery().optional(),
      is_visible: boolQuery.optional(),
      keyword: z.string().max(64).optional(),
      sort: sortQuery(GROUP_SORT_KEYS).optional(),
    }),
  },
  data: pageSchema(groupSchema),
});

const reorder = defineRoute({
  method: 'post',
  path: `${base}/reorders`,
  tags,
  summary: '二级分组排序',
  access: manage,
  request: jsonBody(reorderBody),
  data: reorderResultSchema,
});

const detail = defineRoute({
  method: 'get',
  path: `${base}/{group}`,
  tags,
  summary: '二级分组详情',
  access: view,
  request: { params: idParam('group') },
  data: groupSchema,
});

const groupBody = z.object({
  first_product_group_id: parentIdInput('一级菜单'),
  name: nameInput,
  description: descriptionInput.optional(),
  is_visible: visibleInput.optional(),
  sort_order: sortOrderInput.optional(),
});

const create = defineRoute({
  method: 'post',
  path: base,
  tags,
  summary: '创建二级分组',
  description: '不传 sort_order 时排在同一菜单的最后。',
  access: manage,
  request: jsonBody(groupBody),
  data: groupSchema,
});

const update = defineRoute({
  method: 'put',
  path: `${base}/{group}`,
  tags,
  summary: '修改二级分组（可移动到其他一级菜单）',
  description:
    '只修改提交的字段。修改 first_product_group_id 会在同一事务内把分组下所有未删除商品的一级菜单与类型改为新菜单的（三级分类随分组移动），并逐个记录变更；移入 other 类型菜单时，若有商品未绑定已启用的上游插件则 42200。',
  access: manage,
  request: { params: idParam('group'), ...jsonBody(groupBody.partial()) },
  data: groupSchema,
});

const remove = defineRoute({
  method: 'delete',
  path: `${base}/{group}`,
  tags,
  summary: '删除二级分组',
  description: '分组下仍有三级分类或商品时拒绝（40901，data 为 {categories, products}）。',
  access: manage,
  request: { params: idParam('group') },
  data: z.null(),
  errors: [ErrorCode.IN_USE],
});

export const adminProductGroupRoutes = createRouter()
  .openapi(reorder, async (c) => ok(c, { list: await reorderDirectory(c.var.deps, 'group', c.req.valid('json').items, operatorOf(c)) }, '排序已保存'))
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listGroups(c.var.deps, query);
    return ok(c, page(rows.map(groupResource), total, query));
  })
  .openapi(detail, async (c) => ok(c, groupResource(await getGroup(c.var.deps, c.req.valid('param').group))))
  .openapi(create, async (c) => ok(c, groupResource(await createGroup(c.var.deps, c.req.valid('json'), operatorOf(c))), '二级分组已创建'))
  .openapi(update, async (c) => ok(c, groupResource(await updateGroup(c.var.deps, c.req.valid('param').group, c.req.valid('json'), operatorOf(c))), '二级分组已修改'))
  .openapi(remove, async (c) => {
    await deleteGroup(c.var.deps, c.req.valid('param').group, operatorOf(c));
    return ok(c, null, '二级分组已删除');
  });

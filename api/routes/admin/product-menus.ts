import { z } from '@hono/zod-openapi';
import { loadDirectoryTree } from '../../../domain/catalogue/directory-tree.js';
import { createMenu, deleteMenu, getMenu, listMenus, MENU_SORT_KEYS, updateMenu } from '../../../domain/catalogue/menus.js';
import { PRODUCT_TYPES } from '../../../db/models/catalogue.js';
import { reorderDirectory } from '../../../domain/catalogue/reorder.js';
import { ErrorCode } from '../../../lib/errors.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { directoryTreeResource, directoryTreeSchema, menuResource, menuSchema, reorderResultSchema } from '../../resources/catalogue.js';
import { boolQuery, idParam, jsonBody, listQuery, sortQuery } from '../../schemas.js';
import { nameInput, operatorOf, reorderBody, sortOrderInput, visibleInput } from './catalogue-inputs.js';

const tags = ['管理端：商品目录'];
const base = '/api/v2/admin/product-menus';
const view = { surface: 'admin', permission: 'product.view' } as const;
const manage = { surface: 'admin', permission: 'product.manage' } as const;
const productType = z.enum(PRODUCT_TYPES, { error: `商品类型只能是：${PRODUCT_TYPES.join('、')}` });
const icon = z.string().max(255, { error: '图标最多 255 个字符' });

const list = defineRoute({
  method: 'get',
  path: base,
  tags,
  summary: '一级菜单列表',
  description: 'sort 可选 sort_order（默认）、id、name、created_at，前缀 - 倒序。',
  access: view,
  request: {
    query: listQuery({
      product_type: productType.optional(),
      is_visible: boolQuery.optional(),
      keyword: z.string().max(64).optional(),
      sort: sortQuery(MENU_SORT_KEYS).optional(),
    }),
  },
  data: pageSchema(menuSchema),
});

const tree = defineRoute({
  method: 'get',
  path: `${base}/tree`,
  tags,
  summary: '商品目录树（后台选择器）',
  description:
    '整个目录一次返回：menus、groups、categories 三个平铺数组（响应嵌套不超过 3 层），分组以 first_product_group_id、分类以 second_product_group_id 指向上级，均按显示顺序排列并带未删除数量。',
  access: view,
  data: directoryTreeSchema,
});

const reorder = defineRoute({
  method: 'post',
  path: `${base}/reorders`,
  tags,
  summary: '一级菜单排序',
  access: manage,
  request: jsonBody(reorderBody),
  data: reorderResultSchema,
});

const detail = defineRoute({
  method: 'get',
  path: `${base}/{menu}`,
  tags,
  summary: '一级菜单详情',
  access: view,
  request: { params: idParam('menu') },
  data: menuSchema,
});

const menuBody = z.object({
  name: nameInput,
  icon: icon.optional(),
  product_type: productType,
  is_visible: visibleInput.optional(),
  sort_order: sortOrderInput.optional(),
});

const create = defineRoute({
  method: 'post',
  path: base,
  tags,
  summary: '创建一级菜单（编码由系统生成）',
  description: '不传 sort_order 时排在最后。code 由系统生成（menu_ 加 8 位字符），永远不等于商品类型。',
  access: manage,
  request: jsonBody(menuBody),
  data: menuSchema,
});

const update = defineRoute({
  method: 'put',
  path: `${base}/{menu}`,
  tags,
  summary: '修改一级菜单',
  description:
    '只修改提交的字段。修改 product_type 会在同一事务内把菜单下所有未删除商品的 product_type 与 service_type_code 改为新类型并记录变更；改为 other 时，若有商品未绑定已启用的上游插件则 42200。',
  access: manage,
  request: { params: idParam('menu'), ...jsonBody(menuBody.partial()) },
  data: menuSchema,
});

const remove = defineRoute({
  method: 'delete',
  path: `${base}/{menu}`,
  tags,
  summary: '删除一级菜单',
  description: '菜单下仍有二级分组或商品时拒绝（40901，消息中写明数量，data 为 {groups, products}）。删除为软删除，编码不再复用。',
  access: manage,
  request: { params: idParam('menu') },
  data: z.null(),
  errors: [ErrorCode.IN_USE],
});

export const adminProductMenuRoutes = createRouter()
  .openapi(tree, async (c) => ok(c, directoryTreeResource(await loadDirectoryTree(c.var.deps))))
  .openapi(reorder, async (c) => ok(c, { list: await reorderDirectory(c.var.deps, 'menu', c.req.valid('json').items, operatorOf(c)) }, '排序已保存'))
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listMenus(c.var.deps, query);
    return ok(c, page(rows.map(menuResource), total, query));
  })
  .openapi(detail, async (c) => ok(c, menuResource(await getMenu(c.var.deps, c.req.valid('param').menu))))
  .openapi(create, async (c) => ok(c, menuResource(await createMenu(c.var.deps, c.req.valid('json'), operatorOf(c))), '一级菜单已创建'))
  .openapi(update, async (c) => ok(c, menuResource(await updateMenu(c.var.deps, c.req.valid('param').menu, c.req.valid('json'), operatorOf(c))), '一级菜单已修改'))
  .openapi(remove, async (c) => {
    await deleteMenu(c.var.deps, c.req.valid('param').menu, operatorOf(c));
    return ok(c, null, '一级菜单已删除');
  });

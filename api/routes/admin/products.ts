import { z } from '@hono/zod-openapi';
import { ADMIN_PRODUCT_SORT_KEYS, getAdminProduct, listAdminProducts } from '../../../domain/catalogue/product-admin-read.js';
import { PRODUCT_TYPES } from '../../../db/models/catalogue.js';
import { bindProductsToCategory, createProduct, deleteProduct, type ProductInput, updateProduct } from '../../../domain/catalogue/product-write.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { adminConfigOptionsResource, adminConfigOptionsSchema, productDetailResource, productDetailSchema, productListItemResource, productListItemSchema } from '../../resources/products.js';
import { idInput, idParam, idQuery, idsBody, jsonBody, listQuery, sortQuery } from '../../schemas.js';
import { operatorOf, sortOrderInput } from './catalogue-inputs.js';

const tags = ['管理端：商品'];
const base = '/api/v2/admin/products';
const view = { surface: 'admin', permission: 'product.view' } as const;
const manage = { surface: 'admin', permission: 'product.manage' } as const;
const positiveId = (label: string) => idInput(`${label}编号必须是正整数`);
const templateInput = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, { error: '模板名只能包含小写字母、数字和下划线，以字母开头，最多 64 个字符' })
  .nullable();

const list = defineRoute({
  method: 'get',
  path: base,
  tags,
  summary: '商品列表',
  description: '筛选：一级菜单、二级分组、三级分类、状态、类型、关键字（名称、展示名称或编号）。sort 可选 sort_order（默认）、id、name、price（主价格）、created_at、updated_at，前缀 - 倒序。不含已删除商品。',
  access: view,
  request: {
    query: listQuery({
      first_product_group_id: idQuery().optional(),
      second_product_group_id: idQuery().optional(),
      product_group_id: idQuery().optional(),
      status: z.enum(['active', 'hidden']).optional(),
      product_type: z.enum(PRODUCT_TYPES).optional(),
      keyword: z.string().max(100).optional(),
      sort: sortQuery(ADMIN_PRODUCT_SORT_KEYS).optional(),
    }),
  },
  data: pageSchema(productListItemSchema),
});

const productBody = z.object({
  name: z.string({ error: '请填写商品名称' }).trim().min(1, { error: '商品名称不能为空' }).max(128, { error: '商品名称最多 128 个字符' }),
  display_name: z.string().trim().max(128, { error: '展示名称最多 128 个字符' }).optional(),
  description: z.string().max(20_000, { error: '描述最多 20000 个字符' }).optional(),
  first_product_group_id: positiveId('一级菜单').optional(),
  first_product_group_code: z.string().max(32).optional().openapi({ description: '一级菜单编码，可代替 first_product_group_id' }),
  second_product_group_id: positiveId('二级分组').nullable().optional(),
  product_group_id: positiveId('三级分类').nullable().optional().openapi({ description: '三级分类；给出时其分组与菜单决定商品的位置' }),
  product_type: z.unknown().optional().openapi({ description: '忽略：商品类型总是取自所属一级菜单' }),
  service_type_code: z.unknown().optional().openapi({ description: '忽略：总是等于所属一级菜单的商品类型' }),
  pricing: z.unknown().openapi({
    type: 'object',
    description: '平铺的价格表：计费周期（monthly、quarterly、semiannually、annually、biennially、triennially、onetime）→ 金额字符串（最多两位小数）。嵌套形式与未知周期 42200。',
    example: { monthly: '19.90', annually: '199.00' },
  }),
  config_options: z.unknown().optional().openapi({
    type: 'array',
    description: '配置项数组（field、name、option_type、hidden、sub、qty_minimum、qty_maximum、parameter、unit）；对象 42200；os 子选项 version 为 <系列>^<版本>；子选项可带 pricing（在基础价格上加收，数量型按每单位）',
  }),
  purchase_template: templateInput.optional().openapi({ description: '显式购买页模板（为空按类型解析）' }),
  console_template: templateInput.optional(),
  stock_control: z.boolean().optional(),
  stock_qty: z.number().int().min(0, { error: '库存不能小于 0' }).max(1_000_000_000).optional(),
  status: z.enum(['active', 'hidden'], { error: '状态只能是 active 或 hidden' }).optional(),
  sort_order: sortOrderInput.optional(),
  plugin_id: positiveId('上游插件').nullable().optional().openapi({ description: '上游插件（upstream 领域，已安装）；other 类型必须是已启用的插件；null 解除绑定' }),
  upstream_product_id: z.string().max(64).optional(),
  config_template: z.unknown().optional().openapi({ type: 'object', description: '配置模板：平铺对象' }),
  provisioning_policy: z.unknown().optional().openapi({ type: 'object', description: '开通策略：平铺对象' }),
});

type ProductBody = z.infer<typeof productBody>;

/** The client's `product_type`/`service_type_code` never reach the domain: the menu decides them. */
function productInput(body: Partial<ProductBody>): ProductInput {
  const { product_type: _type, service_type_code: _code, ...input } = body;
  return input;
}

const create = defineRoute({
  method: 'post',
  path: base,
  tags,
  summary: '创建商品',
  description:
    '位置由 product_group_id（三级分类）、second_product_group_id（二级分组）、first_product_group_id 或 first_product_group_code（一级菜单）中最具体的一个决定，互相矛盾则 42200；product_type 与 service_type_code 总是取自一级菜单，客户端提交的值被忽略。other 类型必须给出已启用的上游插件 plugin_id。',
  access: manage,
  request: jsonBody(productBody),
  data: productDetailSchema,
});

const bindCategory = defineRoute({
  method: 'post',
  path: `${base}/category-bindings`,
  tags,
  summary: '批量绑定三级分类',
  description: 'ids 为商品编号数组（不接受逗号字符串，最多 100 个）；全部成功或全部不变。每个商品的二级分组、一级菜单与类型随分类重新确定并记录变更。',
  access: manage,
  request: jsonBody(idsBody.extend({ product_group_id: positiveId('三级分类') })),
  data: z.object({ ids: z.array(z.number().int()), product_group_id: z.number().int(), updated: z.number().int().openapi({ description: '实际发生变化的商品数' }) }),
});

const detail = defineRoute({
  method: 'get',
  path: `${base}/{product}`,
  tags,
  summary: '商品详情（按模块：base、pricing、provisioning、upstream_binding、options、audit）',
  description: 'options 模块只含配置项本身，子选项与价格见 options.choices_path；audit 模块为最近 5 条变更，完整记录见 audit.list_path。',
  access: view,
  request: { params: idParam('product') },
  data: productDetailSchema,
});

const configOptions = defineRoute({
  method: 'get',
  path: `${base}/{product}/config-options`,
  tags,
  summary: '商品配置项（含子选项与价格，平铺形式）',
  access: view,
  request: { params: idParam('product') },
  data: adminConfigOptionsSchema,
});

const update = defineRoute({
  method: 'put',
  path: `${base}/{product}`,
  tags,
  summary: '修改商品',
  description: '只修改提交的字段（字段同创建）。改变位置会重新确定菜单、分组、分类与类型；只提交同一个一级菜单时保留原分组与分类。',
  access: manage,
  request: { params: idParam('product'), ...jsonBody(productBody.partial()) },
  data: productDetailSchema,
});

const remove = defineRoute({
  method: 'delete',
  path: `${base}/{product}`,
  tags,
  summary: '删除商品（软删除）',
  description: '账单可能引用该商品，记录保留，但不再出现在任何列表中。',
  access: manage,
  request: { params: idParam('product') },
  data: z.null(),
});

export const adminProductRoutes = createRouter()
  .openapi(bindCategory, async (c) => {
    const body = c.req.valid('json');
    const result = await bindProductsToCategory(c.var.deps, body.ids, body.product_group_id, operatorOf(c));
    return ok(c, { ...result, product_group_id: body.product_group_id }, '商品已绑定分类');
  })
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listAdminProducts(c.var.deps, query);
    return ok(c, page(rows.map(productListItemResource), total, query));
  })
  .openapi(create, async (c) => {
    const id = await createProduct(c.var.deps, productInput(c.req.valid('json')), operatorOf(c));
    return ok(c, productDetailResource(await getAdminProduct(c.var.deps, id)), '商品已创建');
  })
  .openapi(detail, async (c) => ok(c, productDetailResource(await getAdminProduct(c.var.deps, c.req.valid('param').product))))
  .openapi(configOptions, async (c) => ok(c, adminConfigOptionsResource(await getAdminProduct(c.var.deps, c.req.valid('param').product))))
  .openapi(update, async (c) => {
    const id = c.req.valid('param').product;
    await updateProduct(c.var.deps, id, productInput(c.req.valid('json')), operatorOf(c));
    return ok(c, productDetailResource(await getAdminProduct(c.var.deps, id)), '商品已修改');
  })
  .openapi(remove, async (c) => {
    await deleteProduct(c.var.deps, c.req.valid('param').product, operatorOf(c));
    return ok(c, null, '商品已删除');
  });

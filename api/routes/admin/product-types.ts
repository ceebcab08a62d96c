import { z } from '@hono/zod-openapi';
import { productTypeOptions } from '../../../domain/catalogue/product-types.js';
import { ok } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';

export const productTypeOptionSchema = z
  .object({ value: z.string(), label: z.string(), is_plugin_driven: z.boolean() })
  .openapi('ProductTypeOption');

const options = defineRoute({
  method: 'get',
  path: '/api/v2/admin/product-type-options',
  tags: ['管理端：商品目录'],
  summary: '商品类型选项（8 种固定类型，不可新增）',
  access: { surface: 'admin', permission: 'product.view' },
  data: z.object({ list: z.array(productTypeOptionSchema) }),
});

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/product-types',
  tags: ['管理端：商品目录'],
  summary: '商品类型（只读：8 种固定类型，没有新增、修改或删除的接口）',
  access: { surface: 'admin', permission: 'product.view' },
  data: z.object({ list: z.array(productTypeOptionSchema) }),
});

export const adminProductTypeRoutes = createRouter()
  .openapi(options, (c) => ok(c, { list: productTypeOptions() }))
  .openapi(list, (c) => ok(c, { list: productTypeOptions() }));

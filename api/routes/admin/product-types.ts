import { z } from '@hono/zod-openapi';
import { productTypeOptions } from '../../../domain/catalogue/product-types.js';
import { ok, pageOfAll, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { listQuery } from '../../schemas.js';

export const productTypeOptionSchema = z
  .object({ value: z.string(), label: z.string(), is_plugin_driven: z.boolean() })
  .openapi('ProductTypeOption');

const options = defineRoute({
  method: 'get',
  path: '/api/v2/admin/product-type-options',
  tags: ['管理端：商品目录'],
  summary: '商品类型选项（8 种固定类型，不可新增）',
  access: { surface: 'admin', permission: 'product.view' },
  request: { query: listQuery({}) },
  data: pageSchema(productTypeOptionSchema),
});

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/product-types',
  tags: ['管理端：商品目录'],
  summary: '商品类型（只读：8 种固定类型，没有新增、修改或删除的接口）',
  access: { surface: 'admin', permission: 'product.view' },
  request: { query: listQuery({}) },
  data: pageSchema(productTypeOptionSchema),
});

export const adminProductTypeRoutes = createRouter()
  .openapi(options, (c) => ok(c, pageOfAll(productTypeOptions(), c.req.valid('query'))))
  .openapi(list, (c) => ok(c, pageOfAll(productTypeOptions(), c.req.valid('query'))));

import { productTypeOptions } from '../../../domain/catalogue/product-types.js';
import { ok, pageOfAll, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { listQuery } from '../../schemas.js';
import { productTypeOptionSchema } from '../admin/product-types.js';

const types = defineRoute({
  method: 'get',
  path: '/api/v2/site/product-types',
  tags: ['站点：商品目录'],
  summary: '商品类型',
  access: { surface: 'public' },
  request: { query: listQuery({}) },
  data: pageSchema(productTypeOptionSchema),
});

export const siteProductTypeRoutes = createRouter().openapi(types, (c) => ok(c, pageOfAll(productTypeOptions(), c.req.valid('query'))));

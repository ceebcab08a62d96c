import { z } from '@hono/zod-openapi';
import { productTypeOptions } from '../../../domain/catalogue/product-types.js';
import { ok } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { productTypeOptionSchema } from '../admin/product-types.js';

const types = defineRoute({
  method: 'get',
  path: '/api/v2/site/product-types',
  tags: ['站点：商品目录'],
  summary: '商品类型',
  access: { surface: 'public' },
  data: z.object({ list: z.array(productTypeOptionSchema) }),
});

export const siteProductTypeRoutes = createRouter().openapi(types, (c) => ok(c, { list: productTypeOptions() }));

import { z } from '@hono/zod-openapi';
import { UPSTREAM_ROUTING_POLICIES } from '../../../db/models/catalogue.js';
import { productBindings } from '../../../domain/catalogue/product-bindings.js';
import {
  addProductAlternate,
  removeProductAlternate,
  reorderProductAlternates,
  setUpstreamRouting,
  updateProductAlternate,
} from '../../../domain/catalogue/product-alternates.js';
import { orNotFound } from '../../../domain/catalogue/directory-rows.js';
import { ErrorCode } from '../../../lib/errors.js';
import { ok, pageOfAll, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { productBindingItemSchema, productBindingResource, productRoutingResource, productRoutingSchema } from '../../resources/product-bindings.js';
import { idInput, idParam, jsonBody, listQuery } from '../../schemas.js';
import { operatorOf } from './catalogue-inputs.js';

/**
 * A product's upstream bindings (issue #38, docs/fulfilment.md "Several suppliers per product"):
 * the list in order, the further bindings' writes and the routing policy. The first binding is
 * the product's own (`PUT /api/v2/admin/products/{product}`); these routes never change it.
 */
const tags = ['管理端：商品'];
const base = '/api/v2/admin/products/{product}/upstream-bindings';
const view = { surface: 'admin', permission: 'product.view' } as const;
const manage = { surface: 'admin', permission: 'product.manage' } as const;
const upstreamErrors = [ErrorCode.DEPENDENCY_UNAVAILABLE];

const upstreamProductInput = z
  .string({ error: '请填写上游商品编号' })
  .trim()
  .regex(/^[1-9][0-9]{0,9}$/, { error: '上游商品编号必须是正整数' });

const bindingBody = z.object({
  supplier_id: idInput('请选择供应商'),
  upstream_product_id: upstreamProductInput,
  config_template: z.unknown().optional().openapi({ type: 'object', description: '配置模板：平铺对象（值为文本、数字、布尔值或它们的数组）' }),
  price_rule: z.unknown().optional().openapi({ type: 'object', description: '加价规则 {type: percent|fixed, value}，同导入时的规则' }),
});

const params = idParam('product');
const bindingParams = idParam('product').extend(idParam('binding').shape);

const list = defineRoute({
  method: 'get',
  path: base,
  tags,
  summary: '商品的上游绑定列表（按顺序）',
  description: '首个绑定（priority 0，id 为 null，即商品自身的上游绑定）在前，其后为备用绑定（priority 1、2、…）。路由策略见商品详情 upstream_binding.routing_policy。',
  access: view,
  request: { params, query: listQuery({}) },
  data: pageSchema(productBindingItemSchema),
});

const create = defineRoute({
  method: 'post',
  path: base,
  tags,
  summary: '添加备用上游绑定',
  description:
    '加在最后（优先级为现有最大值 + 1）。供应商须存在、已启用并关联已安装的上游插件（其他类型的商品须已启用），上游商品须在该供应商处存在；同一供应商的同一上游商品不能重复绑定；商品须先有首个绑定。',
  access: manage,
  request: { params, ...jsonBody(bindingBody) },
  data: productRoutingSchema,
  errors: upstreamErrors,
});

const update = defineRoute({
  method: 'put',
  path: `${base}/{binding}`,
  tags,
  summary: '修改备用上游绑定',
  description: '只修改提交的字段，校验同添加。首个绑定经商品修改接口维护。',
  access: manage,
  request: { params: bindingParams, ...jsonBody(bindingBody.partial()) },
  data: productRoutingSchema,
  errors: upstreamErrors,
});

const remove = defineRoute({
  method: 'delete',
  path: `${base}/{binding}`,
  tags,
  summary: '删除备用上游绑定',
  description: '其后的备用绑定依次前移（优先级保持 1、2、…）。',
  access: manage,
  request: { params: bindingParams },
  data: productRoutingSchema,
});

const reorder = defineRoute({
  method: 'post',
  path: `${base}/reorders`,
  tags,
  summary: '调整备用上游绑定的顺序',
  description: 'ids 为该商品全部备用绑定编号的新顺序（每个一次），优先级依次成为 1、2、…；首个绑定始终在前。全部成功或全部不变。',
  access: manage,
  request: {
    params,
    ...jsonBody(
      z.object({
        ids: z
          .array(idInput('备用绑定编号必须是正整数'), { error: 'ids 必须是整数数组' })
          .min(1, { error: 'ids 不能为空' })
          .max(50, { error: 'ids 最多 50 个' }),
      }),
    ),
  },
  data: productRoutingSchema,
});

const routing = defineRoute({
  method: 'put',
  path: '/api/v2/admin/products/{product}/upstream-routing',
  tags,
  summary: '设置上游路由策略',
  description: 'priority：在可开通的绑定中取优先级最高者；lowest_cost：取上游成本最低者（成本相同按优先级）。',
  access: manage,
  request: {
    params,
    ...jsonBody(z.object({ routing_policy: z.enum(UPSTREAM_ROUTING_POLICIES, { error: '路由策略只能是 priority 或 lowest_cost' }) })),
  },
  data: productRoutingSchema,
});

export const adminProductBindingRoutes = createRouter()
  .openapi(list, async (c) => {
    const read = orNotFound(await productBindings(c.var.deps, c.req.valid('param').product), '商品不存在');
    return ok(c, pageOfAll(read.bindings.map(productBindingResource), c.req.valid('query')));
  })
  .openapi(create, async (c) => {
    const { bindings } = await addProductAlternate(c.var.deps, c.req.valid('param').product, c.req.valid('json'), operatorOf(c));
    return ok(c, productRoutingResource(bindings), '备用上游绑定已添加');
  })
  .openapi(reorder, async (c) => {
    const read = await reorderProductAlternates(c.var.deps, c.req.valid('param').product, c.req.valid('json').ids, operatorOf(c));
    return ok(c, productRoutingResource(read), '备用上游绑定顺序已调整');
  })
  .openapi(update, async (c) => {
    const { product, binding } = c.req.valid('param');
    const read = await updateProductAlternate(c.var.deps, product, binding, c.req.valid('json'), operatorOf(c));
    return ok(c, productRoutingResource(read), '备用上游绑定已修改');
  })
  .openapi(remove, async (c) => {
    const { product, binding } = c.req.valid('param');
    const read = await removeProductAlternate(c.var.deps, product, binding, operatorOf(c));
    return ok(c, productRoutingResource(read), '备用上游绑定已删除');
  })
  .openapi(routing, async (c) => {
    const read = await setUpstreamRouting(c.var.deps, c.req.valid('param').product, c.req.valid('json').routing_policy, operatorOf(c));
    return ok(c, productRoutingResource(read), '上游路由策略已设置');
  });

import { z } from '@hono/zod-openapi';
import { adminActor } from '../../../lib/actor.js';
import { SUPPLIER_BREAKER_STATES } from '../../../db/models/supplier.js';
import { getSupplierHealth, listSupplierHealth, resetSupplierBreaker } from '../../../domain/suppliers/health.js';
import { ok, pageOfAll, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { supplierHealthResource, supplierHealthSchema } from '../../resources/supplier-health.js';
import { idParam, listQuery } from '../../schemas.js';

/**
 * Supplier health (docs/fulfilment.md "Supplier health"): each supplier's circuit breaker and its
 * window of calls, and the admin's hand reset of a breaker. Registered before the supplier
 * routes, so `/suppliers/health` is not read as a supplier id.
 */
const tags = ['管理端：供应商'];
const view = { surface: 'admin', permission: 'supplier.view' } as const;
const manage = { surface: 'admin', permission: 'supplier.manage' } as const;
const base = '/api/v2/admin/suppliers';

const list = defineRoute({
  method: 'get',
  path: `${base}/health`,
  // The generated name (adminSuppliersHealthGet) is also the one of `/suppliers/{supplier}/health`.
  operationId: 'adminSupplierHealthList',
  tags,
  summary: '供应商健康状况（熔断器与最近调用的失败比例、延迟）',
  description: '每个供应商一行：熔断器状态（closed / open / half_open）与统计窗口内的调用数、失败比例和延迟。供应商数量有限，整表分页。',
  access: view,
  request: {
    query: listQuery({
      state: z.enum(SUPPLIER_BREAKER_STATES, { error: `状态只能是 ${SUPPLIER_BREAKER_STATES.join('、')}` }).optional(),
    }),
  },
  data: pageSchema(supplierHealthSchema),
});

const detail = defineRoute({
  method: 'get',
  path: `${base}/{supplier}/health`,
  tags,
  summary: '单个供应商的健康状况',
  access: view,
  request: { params: idParam('supplier') },
  data: supplierHealthSchema,
});

const reset = defineRoute({
  method: 'post',
  path: `${base}/{supplier}/health/reset`,
  tags,
  summary: '手动关闭熔断器（确认供应商已恢复）',
  description: '熔断器未关闭时改为关闭并发出“供应商已恢复”提醒，统计窗口从此刻重新计算；已关闭时不变。',
  access: manage,
  request: { params: idParam('supplier') },
  data: supplierHealthSchema,
});

export const adminSupplierHealthRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const all = (await listSupplierHealth(c.var.deps)).filter((h) => !query.state || h.state === query.state);
    return ok(c, pageOfAll(all.map(supplierHealthResource), query));
  })
  .openapi(detail, async (c) => ok(c, supplierHealthResource(await getSupplierHealth(c.var.deps, c.req.valid('param').supplier))))
  .openapi(reset, async (c) =>
    ok(c, supplierHealthResource(await resetSupplierBreaker(c.var.deps, c.req.valid('param').supplier, adminActor(c.var.admin))), '熔断器已关闭'),
  );

import { z } from '@hono/zod-openapi';
import { AUDIT_ACTIONS, getCatalogueAuditEntry, listCatalogueAudit } from '../../../domain/catalogue/audit.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { auditDetailResource, auditDetailSchema, auditSummaryResource, auditSummarySchema } from '../../resources/catalogue.js';
import { idParam, idQuery, listQuery } from '../../schemas.js';

const tags = ['管理端：商品目录'];
const base = '/api/v2/admin/catalogue-audit-logs';
const view = { surface: 'admin', permission: 'product.view' } as const;

const list = defineRoute({
  method: 'get',
  path: base,
  tags,
  summary: '商品目录变更记录',
  description: '一级菜单、二级分组、三级分类与商品的每次后台修改：谁（管理员编号与用户名）、何时、改了哪些字段。按时间倒序；可按对象类型与编号、操作人、动作筛选。字段的新旧值见详情。',
  access: view,
  request: {
    query: listQuery({
      entity_type: z.enum(['menu', 'group', 'category', 'product']).optional(),
      entity_id: idQuery().optional(),
      operator_id: idQuery().optional(),
      action: z.enum(AUDIT_ACTIONS).optional(),
    }),
  },
  data: pageSchema(auditSummarySchema),
});

const detail = defineRoute({
  method: 'get',
  path: `${base}/{id}`,
  tags,
  summary: '变更记录详情（字段新旧值）',
  access: view,
  request: { params: idParam('id') },
  data: auditDetailSchema,
});

export const adminCatalogueAuditRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listCatalogueAudit(c.var.deps, query);
    return ok(c, page(rows.map(auditSummaryResource), total, query));
  })
  .openapi(detail, async (c) => ok(c, auditDetailResource(await getCatalogueAuditEntry(c.var.deps, c.req.valid('param').id))));

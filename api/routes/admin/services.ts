import { z } from '@hono/zod-openapi';
import { SERVICE_STATUSES } from '../../../db/models/service.js';
import { PRODUCT_TYPES } from '../../../db/models/catalogue.js';
import { getAdminServiceDetail } from '../../../domain/services/admin-service-detail.js';
import { listServices, SERVICE_SORT_KEYS } from '../../../domain/services/list-services.js';
import { getUser } from '../../../domain/users/users.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { adminServiceDetailResource, adminServiceDetailSchema, adminServiceSummaryResource, adminServiceSummarySchema } from '../../resources/admin-services.js';
import { idParam, idQuery, listQuery, sortQuery } from '../../schemas.js';

const tags = ['管理端：服务'];

const filters = {
  status: z.enum(SERVICE_STATUSES).optional(),
  product_type: z.enum(PRODUCT_TYPES).optional(),
  supplier_id: idQuery().optional(),
  keyword: z.string().trim().min(1).max(64).optional().openapi({ description: '商品名称、主机名或 IP（包含，不区分大小写）' }),
  sort: sortQuery(SERVICE_SORT_KEYS).optional(),
};
const FILTER_TEXT = `筛选：status、product_type、supplier_id（服务绑定或开通所用的供应商）、keyword；sort 可选 ${SERVICE_SORT_KEYS.join('、')}（前缀 - 倒序），默认 -id。`;

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/services',
  tags,
  summary: '服务列表',
  description: `${FILTER_TEXT}另可按 user_id 筛选。`,
  access: { surface: 'admin', permission: 'service.view' },
  request: { query: listQuery({ user_id: idQuery().optional(), ...filters }) },
  data: pageSchema(adminServiceSummarySchema),
});

const detail = defineRoute({
  method: 'get',
  path: '/api/v2/admin/services/{service}',
  tags,
  summary: '服务详情（含上游绑定、最近记录与续费/流量包订单）',
  description: '字段同客户端服务详情，另含用户、新购账单、供应商、上游绑定（上游商品、订单、账单、主机）、最近 20 条服务记录与最近 10 笔续费/流量包订单。从不包含密码。',
  access: { surface: 'admin', permission: 'service.view' },
  request: { params: idParam('service') },
  data: adminServiceDetailSchema,
});

const userServices = defineRoute({
  method: 'get',
  path: '/api/v2/admin/users/{user}/services',
  tags,
  summary: '用户的服务',
  description: FILTER_TEXT,
  access: { surface: 'admin', permission: 'service.view' },
  request: { params: idParam('user'), query: listQuery(filters) },
  data: pageSchema(adminServiceSummarySchema),
});

export const adminServiceRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listServices(c.var.deps, query);
    return ok(c, page(rows.map(adminServiceSummaryResource), total, query));
  })
  .openapi(detail, async (c) => {
    const { view, events, orders } = await getAdminServiceDetail(c.var.deps, c.req.valid('param').service);
    return ok(c, adminServiceDetailResource(view, events, orders));
  })
  .openapi(userServices, async (c) => {
    const user = await getUser(c.var.deps, c.req.valid('param').user);
    const query = c.req.valid('query');
    const { rows, total } = await listServices(c.var.deps, { ...query, user_id: user.id });
    return ok(c, page(rows.map(adminServiceSummaryResource), total, query));
  });

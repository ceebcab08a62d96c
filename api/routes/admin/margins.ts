import { z } from '@hono/zod-openapi';
import { SERVICE_STATUSES } from '../../../db/models/service.js';
import {
  getServiceMargin,
  listServiceMargins,
  marginReport,
  marginReportSummary,
  REPORT_GROUPS,
  REPORT_PERIODS,
  summariseServiceMargins,
} from '../../../domain/economics/margins.js';
import { MAX_RANGE_DAYS } from '../../../domain/dashboard/figures.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { marginFiguresSchema, marginReportRowResource, marginReportRowSchema, serviceMarginDetailResource, serviceMarginDetailSchema, serviceMarginResource, serviceMarginSchema } from '../../resources/margins.js';
import { dateQuery, idParam, idQuery, listQuery } from '../../schemas.js';

const tags = ['管理端：经营（成本与毛利）'];
const access = { surface: 'admin', permission: 'economics.view' } as const;

const RULES =
  '收入：服务的已支付账单（新购、续费、流量包、升降级；一张新购账单含多个服务时平均分摊，余下的分到第一个服务）；退款：这些账单的成功退款；上游成本：每次上游支付记录的上游账单金额。' +
  '毛利 = 收入 − 退款 − 上游成本；毛利率 = 毛利 ÷（收入 − 退款）× 100，两位小数，收入 − 退款为 0 时为 null。' +
  '在记录成本之前购买、或上游未答复金额的上游支付，成本未知：cost_known 为 false，upstream_cost、margin、margin_percent 为 null（从不记为 0）。';

const serviceFilters = {
  user_id: idQuery().optional(),
  product_id: idQuery().optional(),
  supplier_id: idQuery().optional(),
  status: z.enum(SERVICE_STATUSES, { error: `status 只能是 ${SERVICE_STATUSES.join('、')} 之一` }).optional(),
};

const services = defineRoute({
  method: 'get',
  path: '/api/v2/admin/economics/margins/services',
  tags,
  summary: '服务毛利列表',
  description: `${RULES}\n\n筛选：user_id、product_id、supplier_id、status；按服务 id 倒序。合计见同路径下的 /summary。`,
  access,
  request: { query: listQuery(serviceFilters) },
  data: pageSchema(serviceMarginSchema),
});

const servicesSummary = defineRoute({
  method: 'get',
  path: '/api/v2/admin/economics/margins/services/summary',
  tags,
  summary: '服务毛利合计',
  description: `筛选条件与服务毛利列表相同（不分页）。任一服务成本未知时合计的成本与毛利为 null，services_cost_unknown 为成本未知的服务数。${RULES}`,
  access,
  request: { query: z.object(serviceFilters) },
  data: marginFiguresSchema.extend({ services: z.number().int(), services_cost_unknown: z.number().int() }).openapi('ServiceMarginSummary'),
});

const serviceDetail = defineRoute({
  method: 'get',
  path: '/api/v2/admin/economics/margins/services/{id}',
  tags,
  summary: '单个服务的毛利与上游成本记录',
  description: RULES,
  access,
  request: { params: idParam('id') },
  data: serviceMarginDetailSchema,
});

const reportFilters = {
  group_by: z.enum(REPORT_GROUPS, { error: 'group_by 只能是 product 或 supplier' }),
  period: z.enum(REPORT_PERIODS, { error: 'period 只能是 day 或 month' }),
  from: dateQuery,
  to: dateQuery,
  product_id: idQuery().optional(),
  supplier_id: idQuery().optional(),
};

const report = defineRoute({
  method: 'get',
  path: '/api/v2/admin/economics/margins/report',
  tags,
  summary: '毛利报表（按商品或供应商，按日或按月）',
  description:
    `from、to 为 Asia/Shanghai 日期（含两端，最多 ${MAX_RANGE_DAYS} 天）。收入按账单支付时间、退款按退款时间、上游成本按记录时间归入日期。` +
    `每行一个周期与分组（group_id 为商品或供应商 id；没有供应商的本地商品 group_id 为 null）；按周期、分组排序。group_by=supplier 按实际交付服务的供应商（服务的 supplier_id）分组：开通时从一个供应商切换到另一个供应商的服务，其收入、退款与上游成本全部计入最终交付的供应商，原供应商留下的未付款账单不计成本。合计见 /summary，与各行之和相等。${RULES}`,
  access,
  request: { query: listQuery(reportFilters) },
  data: pageSchema(marginReportRowSchema),
});

const reportSummary = defineRoute({
  method: 'get',
  path: '/api/v2/admin/economics/margins/report/summary',
  tags,
  summary: '毛利报表合计',
  description: `筛选条件与毛利报表相同（不分页；group_by 与 period 不影响合计）。${RULES}`,
  access,
  request: { query: z.object(reportFilters) },
  data: marginFiguresSchema.extend({ from: z.string(), to: z.string() }).openapi('MarginReportSummary'),
});

export const adminMarginRoutes = createRouter()
  .openapi(servicesSummary, async (c) => {
    const { currency, ...figures } = await summariseServiceMargins(c.var.deps, c.req.valid('query'));
    return ok(c, { ...figures, currency });
  })
  .openapi(services, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listServiceMargins(c.var.deps, query);
    return ok(c, page(rows.map(serviceMarginResource), total, query));
  })
  .openapi(serviceDetail, async (c) => ok(c, serviceMarginDetailResource(await getServiceMargin(c.var.deps, c.req.valid('param').id))))
  .openapi(reportSummary, async (c) => ok(c, await marginReportSummary(c.var.deps, c.req.valid('query'))))
  .openapi(report, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await marginReport(c.var.deps, query);
    return ok(c, page(rows.map(marginReportRowResource), total, query));
  });

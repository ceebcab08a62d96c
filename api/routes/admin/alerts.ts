import { z } from '@hono/zod-openapi';
import { acknowledgeAdminAlert, ALERT_KINDS, ALERT_STATES, listAdminAlerts, summariseAdminAlerts } from '../../../domain/economics/alerts.js';
import { adminActor } from '../../../lib/actor.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { adminAlertResource, adminAlertSchema } from '../../resources/economics/alerts.js';
import { idParam, listQuery } from '../../schemas.js';

const tags = ['管理端：经营'];
const base = '/api/v2/admin/economics/alerts';

const filters = {
  kind: z.enum(ALERT_KINDS, { error: `类型只能是 ${ALERT_KINDS.join('、')}` }).optional(),
  state: z.enum(ALERT_STATES, { error: '状态只能是 open 或 acknowledged' }).optional(),
};

const list = defineRoute({
  method: 'get',
  path: base,
  tags,
  summary: '经营提醒列表',
  description:
    '每次变化一条（不是每次运行一条）：上游价格变化使毛利率低于下限或低于成本（price_drift）、上游工作因供应商余额不足而等待（funds_short，每个供应商每次不足一条）、余额不够未来续费（runway_short，每个供应商每天一条）、与上游对账的差异（reconciliation）、数据库 WAL 归档失败（backup_archive）。提醒与其记录在同一事务写入。筛选：kind、state；按编号倒序。',
  access: { surface: 'admin', permission: 'economics.view' },
  request: { query: listQuery(filters) },
  data: pageSchema(adminAlertSchema),
});

const summary = defineRoute({
  method: 'get',
  path: `${base}/summary`,
  tags,
  summary: '经营提醒统计',
  description: '与列表相同的筛选（不分页）：总数、未读数与各类型未读数。',
  access: { surface: 'admin', permission: 'economics.view' },
  request: { query: z.object(filters) },
  data: z.object({
    total: z.number().int(),
    open: z.number().int(),
    open_by_kind: z.object(Object.fromEntries(ALERT_KINDS.map((k) => [k, z.number().int()])) as Record<(typeof ALERT_KINDS)[number], z.ZodNumber>),
  }),
});

const acknowledge = defineRoute({
  method: 'post',
  path: `${base}/{id}/acknowledge`,
  tags,
  summary: '标记经营提醒已读',
  description: '未读 → 已读；重复标记原样返回。只改变提醒本身，不处理它所说的事。',
  access: { surface: 'admin', permission: 'economics.manage' },
  request: { params: idParam('id') },
  data: adminAlertSchema,
});

export const adminAlertRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listAdminAlerts(c.var.deps, query);
    return ok(c, page(rows.map(adminAlertResource), total, query));
  })
  .openapi(summary, async (c) => ok(c, await summariseAdminAlerts(c.var.deps, c.req.valid('query'))))
  .openapi(acknowledge, async (c) => ok(c, adminAlertResource(await acknowledgeAdminAlert(c.var.deps, c.req.valid('param').id, adminActor(c.var.admin))), '已读'));

import { z } from '@hono/zod-openapi';
import { RECONCILIATION_FINDING_KINDS, RECONCILIATION_FINDING_STATES, RECONCILIATION_RUN_STATUSES } from '../../../db/models/reconciliation.js';
import { ErrorCode } from '../../../lib/errors.js';
import { changeFindingState, listFindings, listRuns, summariseFindings } from '../../../domain/economics/reconciliation/findings.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { findingResource, findingSchema, findingSummaryResource, findingSummarySchema, runResource, runSchema } from '../../resources/reconciliation.js';
import { idParam, idQuery, jsonBody, listQuery } from '../../schemas.js';

const tags = ['管理端：经营核算（上游对账）'];

const ABOUT =
  '每日任务 upstream.reconcile（也可在计划任务中手动触发）逐个供应商分页拉取上游主机列表与账单列表，与本地服务、上游绑定和服务订单比对，每个差异一条记录：' +
  'unknown_upstream_host（上游有主机而本地无对应服务或服务已结束，可能漏收费）、missing_upstream（本地有效服务的上游主机已不存在或已终止）、upstream_suspended（上游已暂停）、' +
  'upstream_expired（上游到期时间已过）、due_date_mismatch（本地与上游到期时间相差超过 1 天）、unmatched_upstream_charge（上游已付账单没有对应的本地开通或服务订单记录）、' +
  'paid_after_failover（开通已切换到其他供应商，原供应商留下的未付账单或其主机的账单却已支付：可能有无人负责的主机，严重告警）、live_after_failover（开通已切换到其他供应商，原供应商留下的主机却在运行，严重告警）。' +
  '切换供应商时在原供应商留下的未付款账单与待开通主机已有记录（service_upstream_attempts），不算差异。' +
  '同一供应商、类型与对象只有一条记录，再次发现只更新最后发现时间；不再出现的差异自动标记为已解决（resolved_by_type=system），已解决的再次出现时重新变为待处理。除差异记录外不修改任何数据。';

const findingFilters = {
  supplier_id: idQuery().optional(),
  kind: z.enum(RECONCILIATION_FINDING_KINDS).optional(),
  state: z.enum(RECONCILIATION_FINDING_STATES).optional(),
  service_id: idQuery().optional(),
};

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/economics/reconciliation/findings',
  tags,
  summary: '上游对账差异列表',
  description: `${ABOUT}\n\n筛选：supplier_id、kind、state（open 待处理、acknowledged 已确认、resolved 已解决）、service_id；按最后发现时间倒序。`,
  access: { surface: 'admin', permission: 'economics.view' },
  request: { query: listQuery(findingFilters) },
  data: pageSchema(findingSchema),
});

const summary = defineRoute({
  method: 'get',
  path: '/api/v2/admin/economics/reconciliation/findings/summary',
  tags,
  summary: '上游对账差异统计（按类型与状态计数）',
  description: '筛选条件与差异列表相同（不分页）。open_amount 为未解决差异的上游金额合计（未知主机的周期价格与无本地订单的账单金额）。',
  access: { surface: 'admin', permission: 'economics.view' },
  request: { query: z.object(findingFilters) },
  data: findingSummarySchema,
});

const noteBody = jsonBody(z.object({ note: z.string().trim().max(200, { error: '备注最多 200 个字符' }).optional() }));

const acknowledge = defineRoute({
  method: 'post',
  path: '/api/v2/admin/economics/reconciliation/findings/{id}/acknowledge',
  tags,
  summary: '确认对账差异（已知悉，处理中）',
  description: '仅待处理（open）的差异可确认，否则 40990。只记录状态、操作人、时间与备注，不修改服务或上游。后续对账不再发现时仍会自动解决。',
  access: { surface: 'admin', permission: 'economics.manage' },
  request: { params: idParam('id'), ...noteBody },
  data: findingSchema,
  errors: [ErrorCode.RECONCILIATION_FINDING_STATE],
});

const resolve = defineRoute({
  method: 'post',
  path: '/api/v2/admin/economics/reconciliation/findings/{id}/resolve',
  tags,
  summary: '标记对账差异为已解决',
  description: '待处理或已确认的差异可标记为已解决，已解决的为 40990。只记录状态、操作人、时间与备注；若下次对账仍发现该差异，会重新变为待处理。',
  access: { surface: 'admin', permission: 'economics.manage' },
  request: { params: idParam('id'), ...noteBody },
  data: findingSchema,
  errors: [ErrorCode.RECONCILIATION_FINDING_STATE],
});

const runs = defineRoute({
  method: 'get',
  path: '/api/v2/admin/economics/reconciliation/runs',
  tags,
  summary: '上游对账运行记录',
  description: '每次对账每个供应商一条：比对了什么（hosts_compared、bills_compared，未比对的原因见 note）、上游主机与账单数、本次发现、新出现与自动解决的差异数。筛选：supplier_id、status；按编号倒序。',
  access: { surface: 'admin', permission: 'economics.view' },
  request: { query: listQuery({ supplier_id: idQuery().optional(), status: z.enum(RECONCILIATION_RUN_STATUSES).optional() }) },
  data: pageSchema(runSchema),
});

export const adminReconciliationRoutes = createRouter()
  .openapi(summary, async (c) => ok(c, findingSummaryResource(await summariseFindings(c.var.deps, c.req.valid('query')))))
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listFindings(c.var.deps, query);
    return ok(c, page(rows.map(findingResource), total, query));
  })
  .openapi(acknowledge, async (c) => {
    const row = await changeFindingState(c.var.deps, c.req.valid('param').id, 'acknowledge', c.var.admin.id, c.req.valid('json').note);
    return ok(c, findingResource(row), '已确认该对账差异');
  })
  .openapi(resolve, async (c) => {
    const row = await changeFindingState(c.var.deps, c.req.valid('param').id, 'resolve', c.var.admin.id, c.req.valid('json').note);
    return ok(c, findingResource(row), '已将该对账差异标记为已解决');
  })
  .openapi(runs, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listRuns(c.var.deps, query);
    return ok(c, page(rows.map(runResource), total, query));
  });

import { adminActor } from '../../../lib/actor.js';
import { z } from '@hono/zod-openapi';
import { SERVICE_ORDER_KINDS, SERVICE_ORDER_STATUSES } from '../../../db/models/service-order.js';
import { ErrorCode } from '../../../lib/errors.js';
import { getServiceOrder, listServiceOrders } from '../../../domain/upstream-work/service-order/admin-service-orders.js';
import { decideUpstreamWork } from '../../../domain/upstream-work/decide.js';
import { SERVICE_ORDER_STAGES, serviceOrderWork } from '../../../domain/upstream-work/kinds.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { serviceOrderDetailResource, serviceOrderDetailSchema, serviceOrderSummaryResource, serviceOrderSummarySchema } from '../../resources/service-orders.js';
import { idParam, idQuery, jsonBody, listQuery } from '../../schemas.js';

const tags = ['管理端：续费与流量包订单'];

const ABOUT =
  '每张已支付的续费（renew）、流量包（traffic_package）或升降级（upgrade）账单对应一笔订单，由工作流 renew:<invoice_no>、traffic:<invoice_no> 或 upgrade:<invoice_no> 处理：向上游申请账单并在支付前记录，支付上游账单（含糊的结果先核对再继续），再完成本地处理（续费顺延到期时间；升降级更新配置与锁定价格，降级差价退还至余额）。上游永久失败或重试用尽时状态为 awaiting_admin，等待管理员重试或取消（退款至余额）。';

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/service-orders',
  tags,
  summary: '续费与流量包订单列表',
  description: `${ABOUT}\n\n筛选：kind、status（pending、processing、awaiting_admin、succeeded、cancelled）、service_id、user_id、supplier_id、stage（阶段，如 awaiting_upstream_funds 等待上游余额、awaiting_admin 等待管理员）、stuck_minutes（未完成且阶段超过 N 分钟未变化）；按阶段变化时间倒序。`,
  access: { surface: 'admin', permission: 'service.view' },
  request: {
    query: listQuery({
      kind: z.enum(SERVICE_ORDER_KINDS).optional(),
      status: z.enum(SERVICE_ORDER_STATUSES).optional(),
      service_id: idQuery().optional(),
      user_id: idQuery().optional(),
      supplier_id: idQuery().optional(),
      stage: z.enum(SERVICE_ORDER_STAGES).optional(),
      stuck_minutes: z.coerce.number().int().min(1).max(100_000).optional(),
    }),
  },
  data: pageSchema(serviceOrderSummarySchema),
});

const detail = defineRoute({
  method: 'get',
  path: '/api/v2/admin/service-orders/{invoice}',
  tags,
  summary: '服务订单（续费、流量包或升降级）详情（按账单 id）',
  description:
    '含上游账单、步骤记录（最近 50 条）、工作流的实时状态与 Temporal UI 链接。工作流状态向 Temporal 查询，最多等待约 2 秒；Temporal 或执行该工作流的 worker 未在此时间内应答时，' +
    '本接口仍正常返回：workflow.live 为 false，workflow.stage 与 workflow.runs 取自数据库（工作流每一步写入的读模型），workflow.status 为 Temporal 已答复的状态或 null。',
  access: { surface: 'admin', permission: 'service.view' },
  request: { params: idParam('invoice') },
  data: serviceOrderDetailSchema,
});

const decisionBody = jsonBody(z.object({ reason: z.string().trim().max(200, { error: '原因最多 200 个字符' }).optional() }));
const decisionAnswer = z.object({
  invoice_id: z.number().int(),
  decision: z.enum(['retry', 'cancel']),
  stage: z.string().openapi({ description: '送达时为工作流的新阶段；未送达时为数据库中的当前阶段' }),
  delivered: z.boolean().openapi({ description: 'true：工作流已接受该决定；false：Temporal 或 worker 暂时无法应答，决定已记录，恢复后自动送达' }),
});
const DECISION_DELIVERY =
  '决定先持久记录（同一次等待只接受一个决定，重复提交同一决定视为同一次，另一决定为 40945），再以工作流更新 service-order.decide 送达，最多等待约 2 秒；' +
  'Temporal 或 worker 暂时无法应答时仍返回成功，delivered 为 false，恢复后由 worker 自动送达。';

const retry = defineRoute({
  method: 'post',
  path: '/api/v2/admin/service-orders/{invoice}/retry',
  tags,
  summary: '重试等待处理的订单',
  description: `仅 awaiting_admin 的订单可重试（40945）。重试沿用已记录的上游账单，不会重复购买；结果异步可见（订单详情）。${DECISION_DELIVERY}`,
  access: { surface: 'admin', permission: 'service.manage' },
  request: { params: idParam('invoice'), ...decisionBody },
  data: decisionAnswer,
  errors: [ErrorCode.SERVICE_ORDER_NOT_AWAITING],
});

const cancel = defineRoute({
  method: 'post',
  path: '/api/v2/admin/service-orders/{invoice}/cancel',
  tags,
  summary: '取消等待处理的订单并退款至余额',
  description: `仅 awaiting_admin 且上游账单未支付的订单可取消（40945）。账单剩余可退金额以余额退款（退款单 trace_id 为 service-order-cancel:<账单 id>，重试不会重复退款），订单标记 cancelled。结果异步可见。${DECISION_DELIVERY}`,
  access: { surface: 'admin', permission: 'service.manage' },
  request: { params: idParam('invoice'), ...decisionBody },
  data: decisionAnswer,
  errors: [ErrorCode.SERVICE_ORDER_NOT_AWAITING],
});

export const adminServiceOrderRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listServiceOrders(c.var.deps, query);
    return ok(c, page(rows.map(serviceOrderSummaryResource), total, query));
  })
  .openapi(detail, async (c) => {
    return ok(c, serviceOrderDetailResource(await getServiceOrder(c.var.deps, c.req.valid('param').invoice)));
  })
  .openapi(retry, async (c) => {
    const invoiceId = c.req.valid('param').invoice;
    const decider = adminActor(c.var.admin);
    const outcome = await decideUpstreamWork(c.var.deps, serviceOrderWork(invoiceId), { action: 'retry', decider, reason: c.req.valid('json').reason ?? '' });
    const answer = { invoice_id: invoiceId, decision: 'retry' as const, stage: outcome.stage, delivered: outcome.delivered };
    return ok(c, answer, outcome.delivered ? '已提交重试' : '工作流暂时无法响应，重试决定已记录，恢复后自动执行');
  })
  .openapi(cancel, async (c) => {
    const invoiceId = c.req.valid('param').invoice;
    const decider = adminActor(c.var.admin);
    const outcome = await decideUpstreamWork(c.var.deps, serviceOrderWork(invoiceId), { action: 'cancel', decider, reason: c.req.valid('json').reason ?? '' });
    const answer = { invoice_id: invoiceId, decision: 'cancel' as const, stage: outcome.stage, delivered: outcome.delivered };
    return ok(c, answer, outcome.delivered ? '已提交取消，账单将退款至余额' : '工作流暂时无法响应，取消决定已记录，恢复后自动执行并退款至余额');
  });

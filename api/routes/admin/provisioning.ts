import { adminActor } from '../../../lib/actor.js';
import { z } from '@hono/zod-openapi';
import { ErrorCode } from '../../../lib/errors.js';
import { getProvisioning, listProvisionings } from '../../../domain/upstream-work/provision/admin.js';
import { decideUpstreamWork } from '../../../domain/upstream-work/decide.js';
import { provisioningWork } from '../../../domain/upstream-work/kinds.js';
import { PROVISION_STAGES } from '../../../workflows/provisioning/contract.js';
import { SERVICE_STATUSES } from '../../../db/models/service.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { provisioningDetail, provisioningDetailSchema, provisioningItem, provisioningItemSchema } from '../../resources/provisioning.js';
import { idParam, idQuery, jsonBody, listQuery } from '../../schemas.js';

const tags = ['管理端：开通'];
const base = '/api/v2/admin/provisioning';
const view = { surface: 'admin', permission: 'service.view' } as const;
const manage = { surface: 'admin', permission: 'service.manage' } as const;

const list = defineRoute({
  // `provisioning` is not plural: the rule would name this like the item route.
  operationId: 'adminProvisioningList',
  method: 'get',
  path: base,
  tags,
  summary: '开通列表（按状态、步骤、供应商、用户筛选，或只看卡住的）',
  description: 'stuck_minutes=N：只列出未完成（pending、provisioning、failed）且当前步骤已停留超过 N 分钟的开通。每项带 Temporal UI 链接（工作流 provision:<service_id>）。',
  access: view,
  request: {
    query: listQuery({
      status: z.enum(SERVICE_STATUSES).optional(),
      stage: z.enum(PROVISION_STAGES).optional(),
      stuck_minutes: z.coerce.number({ error: '分钟数必须是整数' }).int({ error: '分钟数必须是整数' }).min(0).max(100_000).optional(),
      supplier_id: idQuery().optional(),
      user_id: idQuery().optional(),
    }),
  },
  data: pageSchema(provisioningItemSchema),
});

const detail = defineRoute({
  method: 'get',
  path: `${base}/{service}`,
  tags,
  summary: '开通详情（步骤历史、上游绑定、工作流状态与 Temporal UI 链接）',
  description:
    '工作流的实时状态（workflow_status、workflow_stage、runs）向 Temporal 查询，最多等待约 2 秒。Temporal 或执行该工作流的 worker 未在此时间内应答时，' +
    '本接口仍正常返回：workflow_live 为 false，workflow_stage 取自数据库（工作流每一步写入的读模型，与 stage 相同），runs 为 null，' +
    'workflow_status 为 Temporal 已答复的状态或 null。',
  access: view,
  request: { params: idParam('service') },
  data: provisioningDetailSchema,
});

const decisionBody = z.object({ reason: z.string().trim().max(200, { error: '原因最多 200 个字符' }).optional() });
const decisionAnswer = z.object({
  service_id: z.number().int(),
  stage: z.string().openapi({ description: '送达时为工作流的新阶段；未送达时为数据库中的当前阶段（awaiting_admin）' }),
  delivered: z.boolean().openapi({ description: 'true：工作流已接受该决定；false：Temporal 或 worker 暂时无法应答，决定已记录，恢复后自动送达' }),
});
const DECISION_DELIVERY =
  '只有数据库中处于 awaiting_admin 的开通可以处理（40931）。决定先持久记录（同一次等待只接受一个决定，重复提交同一决定视为同一次），' +
  '再以工作流更新 provision.decide 送达，最多等待约 2 秒；Temporal 或 worker 暂时无法应答时仍返回成功，delivered 为 false，恢复后由 worker 自动送达。';

const retry = defineRoute({
  method: 'post',
  path: `${base}/{service}/retry`,
  tags,
  summary: '重试失败的开通（沿用同一下游引用，不会重复购买）',
  description: DECISION_DELIVERY,
  access: manage,
  request: { params: idParam('service'), ...jsonBody(decisionBody) },
  data: decisionAnswer,
  errors: [ErrorCode.PROVISIONING_NOT_AWAITING],
});

const cancel = defineRoute({
  method: 'post',
  path: `${base}/{service}/cancel`,
  tags,
  summary: '取消失败的开通并将该服务金额退回余额',
  description: DECISION_DELIVERY,
  access: manage,
  request: {
    params: idParam('service'),
    ...jsonBody(z.object({ reason: z.string({ error: '请填写取消原因' }).trim().min(1, { error: '请填写取消原因' }).max(200, { error: '原因最多 200 个字符' }) })),
  },
  data: decisionAnswer,
  errors: [ErrorCode.PROVISIONING_NOT_AWAITING],
});

export const adminProvisioningRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listProvisionings(c.var.deps, query);
    return ok(c, page(rows.map((r) => provisioningItem(r, c.var.deps.config)), total, query));
  })
  .openapi(detail, async (c) => ok(c, provisioningDetail(await getProvisioning(c.var.deps, c.req.valid('param').service), c.var.deps.config)))
  .openapi(retry, async (c) => {
    const serviceId = c.req.valid('param').service;
    const decider = adminActor(c.var.admin);
    const outcome = await decideUpstreamWork(c.var.deps, provisioningWork(serviceId), { action: 'retry', decider, reason: c.req.valid('json').reason ?? '' });
    const answer = { service_id: serviceId, stage: outcome.stage, delivered: outcome.delivered };
    return ok(c, answer, outcome.delivered ? '已重新开始开通' : '工作流暂时无法响应，重试决定已记录，恢复后自动执行');
  })
  .openapi(cancel, async (c) => {
    const serviceId = c.req.valid('param').service;
    const decider = adminActor(c.var.admin);
    const outcome = await decideUpstreamWork(c.var.deps, provisioningWork(serviceId), { action: 'cancel', decider, reason: c.req.valid('json').reason });
    const answer = { service_id: serviceId, stage: outcome.stage, delivered: outcome.delivered };
    return ok(c, answer, outcome.delivered ? '已提交取消，金额将退回用户余额' : '工作流暂时无法响应，取消决定已记录，恢复后自动执行并退款至余额');
  });

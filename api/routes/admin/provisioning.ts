import { z } from '@hono/zod-openapi';
import { ErrorCode } from '../../../lib/errors.js';
import { decideProvisioning, getProvisioning, listProvisionings } from '../../../domain/provisioning/admin.js';
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
  access: view,
  request: { params: idParam('service') },
  data: provisioningDetailSchema,
});

const decisionBody = z.object({ reason: z.string().trim().max(200, { error: '原因最多 200 个字符' }).optional() });

const retry = defineRoute({
  method: 'post',
  path: `${base}/{service}/retry`,
  tags,
  summary: '重试失败的开通（沿用同一下游引用，不会重复购买）',
  access: manage,
  request: { params: idParam('service'), ...jsonBody(decisionBody) },
  data: z.object({ service_id: z.number().int(), stage: z.string() }),
  errors: [ErrorCode.PROVISIONING_NOT_AWAITING, ErrorCode.DEPENDENCY_UNAVAILABLE],
});

const cancel = defineRoute({
  method: 'post',
  path: `${base}/{service}/cancel`,
  tags,
  summary: '取消失败的开通并将该服务金额退回余额',
  access: manage,
  request: {
    params: idParam('service'),
    ...jsonBody(z.object({ reason: z.string({ error: '请填写取消原因' }).trim().min(1, { error: '请填写取消原因' }).max(200, { error: '原因最多 200 个字符' }) })),
  },
  data: z.object({ service_id: z.number().int(), stage: z.string() }),
  errors: [ErrorCode.PROVISIONING_NOT_AWAITING, ErrorCode.DEPENDENCY_UNAVAILABLE],
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
    const decider = { id: c.var.admin.id, name: c.var.admin.username };
    await decideProvisioning(c.var.deps, serviceId, { action: 'retry', decider, reason: c.req.valid('json').reason ?? '' });
    return ok(c, { service_id: serviceId, stage: 'prepare' }, '已重新开始开通');
  })
  .openapi(cancel, async (c) => {
    const serviceId = c.req.valid('param').service;
    const decider = { id: c.var.admin.id, name: c.var.admin.username };
    await decideProvisioning(c.var.deps, serviceId, { action: 'cancel', decider, reason: c.req.valid('json').reason });
    return ok(c, { service_id: serviceId, stage: 'cancelling' }, '已提交取消，金额将退回用户余额');
  });

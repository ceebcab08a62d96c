import { z } from '@hono/zod-openapi';
import { ErrorCode, validationError } from '../../../lib/errors.js';
import { money } from '../../../lib/money.js';
import { adminAudit } from '../../../domain/billing/audit.js';
import { REFUND_SCOPES, type RefundScope } from '../../../domain/billing/constants.js';
import { REFUND_METHODS, REFUND_STATUSES } from '../../../db/models/billing.js';
import { findDocument, listDocuments } from '../../../domain/billing/lists/list-documents.js';
import { refundDocuments } from '../../../domain/billing/refunds/refund-documents.js';
import { createRefund } from '../../../domain/billing/refunds/create-refund.js';
import { startRefundWorkflow } from '../../../domain/billing/refunds/start-refund-workflow.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { refundResource, refundSchema } from '../../resources/billing/refund.js';
import { idParam, idQuery, jsonBody, listQuery, moneyInput, moneyString, sortQuery } from '../../schemas.js';

const tags = ['管理端：财务单据'];
const SORT_KEYS = ['id', 'created_at', 'amount', 'refunded_at'] as const;
/** How long the request waits for an original refund's gateway answer before answering `processing`. */
const ORIGINAL_REFUND_WAIT_MS = 5_000;

const refundAnswer = z.object({
  id: z.number().int().openapi({ description: '退款单 id' }),
  status: z.enum(REFUND_STATUSES),
  message: z.string(),
  detail: z.object({
    type: z.literal('refund'),
    user: z.object({ id: z.number().int() }),
    refund: z.object({
      refund_no: z.string(),
      invoice_id: z.number().int(),
      refund_method: z.enum(REFUND_METHODS),
      amount: moneyString,
      balance_part: moneyString,
      third_party_part: moneyString,
      out_request_no: z.string().nullable(),
    }),
    documents: z.object({
      refund_id: z.number().int(),
      refund_invoice_id: z.number().int().nullable(),
      recharge_record_id: z.number().int().nullable().openapi({ description: '冲减充值记录；纯余额支付（或原支付无第三方充值记录）时为 null' }),
    }),
  }),
});

const create = defineRoute({
  method: 'post',
  path: '/api/v2/admin/users/{user}/invoices/{invoice}/refunds',
  tags,
  summary: '账单退款（余额或原路）',
  description: [
    '前置条件：账单为新购、续费或流量包，状态 paid 或 partially_refunded，关联订单 paid 或 completed（否则 40915）。',
    'amount 省略时退还全部剩余可退金额，超过剩余可退金额答 40914（剩余可退金额计入处理中的退款）。先退第三方支付部分，再退余额支付部分。',
    'balance：全部退回余额（正数 refund 流水），立即完成；第三方部分按原充值记录生成负数冲减记录（不超过其剩余可冲减金额），余额部分不生成冲减记录。',
    'original：第三方部分经支付插件 payment.refund 原路退回（工作流 refund:<refund_no>，每次重试复用同一个 out_request_no），余额部分退回余额；没有可原路退的第三方金额答 40917。网关 5 秒内完成则直接返回结果，否则状态为 processing，可在退款单详情查询。',
    'scope：要同步状态的关联单据，order（全额退款后订单为 refunded）与 payment（支付单的已退金额与状态），默认两者；原路退款必须包含 payment。',
    '生成红字退款账单（type=refund，金额为负，origin_invoice_id 指向原账单）。',
  ].join('\n\n'),
  access: { surface: 'admin', permission: 'invoice.manage', stepUp: true },
  request: {
    params: idParam('user').extend(idParam('invoice').shape),
    ...jsonBody(
      z.object({
        refund_method: z.enum(REFUND_METHODS, { error: '退款方式只能是 balance 或 original' }),
        amount: moneyInput.optional(),
        remark: z.string().max(200, { error: '退款原因最多 200 个字符' }).optional(),
        scope: z.array(z.enum(REFUND_SCOPES, { error: 'scope 的元素只能是 order 或 payment' })).max(2).optional(),
      }),
    ),
  },
  data: refundAnswer,
  errors: [ErrorCode.REFUND_EXCEEDS_REMAINING, ErrorCode.INVOICE_NOT_REFUNDABLE, ErrorCode.REFUND_METHOD_UNAVAILABLE],
});

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/refunds',
  tags,
  summary: '退款单列表',
  description: `筛选：user_id、invoice_id、status、refund_method、refund_no；sort 可选 ${SORT_KEYS.join('、')}。`,
  access: { surface: 'admin', permission: 'invoice.view' },
  request: {
    query: listQuery({
      user_id: idQuery().optional(),
      invoice_id: idQuery().optional(),
      status: z.enum(REFUND_STATUSES).optional(),
      refund_method: z.enum(REFUND_METHODS).optional(),
      refund_no: z.string().max(32).optional(),
      sort: sortQuery(SORT_KEYS).optional(),
    }),
  },
  data: pageSchema(refundSchema),
});

const detail = defineRoute({
  method: 'get',
  path: '/api/v2/admin/refunds/{refund}',
  tags,
  summary: '退款单详情',
  access: { surface: 'admin', permission: 'invoice.view' },
  request: { params: idParam('refund') },
  data: refundSchema,
});

function readScope(method: string, scope: RefundScope[] | undefined): RefundScope[] {
  const chosen = scope ?? [...REFUND_SCOPES];
  if (new Set(chosen).size !== chosen.length) throw validationError({ scope: ['scope 不能有重复元素'] });
  if (method === 'original' && !chosen.includes('payment')) throw validationError({ scope: ['原路退款的 scope 必须包含 payment'] });
  return chosen;
}

export const adminRefundRoutes = createRouter()
  .openapi(create, async (c) => {
    const { user, invoice } = c.req.valid('param');
    const body = c.req.valid('json');
    const amount = body.amount === undefined ? null : money(body.amount);
    if (amount !== null && amount.lte(0)) throw validationError({ amount: ['退款金额必须大于 0'] });
    const audit = adminAudit(c.var.admin, c.var.requestId);
    const created = await createRefund(
      c.var.deps,
      { userId: user, invoiceId: invoice, method: body.refund_method, amount, reason: body.remark?.trim() ?? '', scope: readScope(body.refund_method, body.scope) },
      audit,
    );
    if (created.refund.refund_method === 'original') {
      const invoiceNo = (await findDocument(c.var.deps.db.models.Invoice, invoice, '账单')).invoice_no;
      await startRefundWorkflow(c.var.deps, created.refund, invoiceNo, ORIGINAL_REFUND_WAIT_MS);
    }
    const refund = await findDocument(c.var.deps.db.models.Refund, created.refund.id, '退款单');
    const documents = await refundDocuments(c.var.deps, refund.id);
    const messages = { succeeded: '退款成功', processing: '退款处理中，网关确认后完成', failed: refund.failure_reason || '退款失败' } as const;
    return ok(
      c,
      {
        id: refund.id,
        status: refund.status,
        message: messages[refund.status],
        detail: {
          type: 'refund' as const,
          user: { id: refund.user_id },
          refund: {
            refund_no: refund.refund_no,
            invoice_id: refund.invoice_id,
            refund_method: refund.refund_method,
            amount: refundResource(refund).amount,
            balance_part: refundResource(refund).balance_part,
            third_party_part: refundResource(refund).third_party_part,
            out_request_no: refund.out_request_no,
          },
          documents,
        },
      },
      messages[refund.status],
    );
  })
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listDocuments(c.var.deps.db.models.Refund, query, ['user_id', 'invoice_id', 'status', 'refund_method', 'refund_no']);
    return ok(c, page(rows.map(refundResource), total, query));
  })
  .openapi(detail, async (c) => ok(c, refundResource(await findDocument(c.var.deps.db.models.Refund, c.req.valid('param').refund, '退款单'))));

import { z } from '@hono/zod-openapi';
import { PAYMENT_STATUSES } from '../../../db/models/billing.js';
import { findDocument, listDocuments } from '../../../domain/billing/lists/list-documents.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { adminPaymentResource, adminPaymentSchema } from '../../resources/billing/payment.js';
import { idParam, idQuery, listQuery, sortQuery } from '../../schemas.js';

const tags = ['管理端：财务单据'];
const SORT_KEYS = ['id', 'created_at', 'amount', 'paid_at'] as const;

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/payments',
  tags,
  summary: '支付单列表（仅第三方真实入账）',
  description: `余额支付、免费与人工开通不产生支付单；支付单从不删除。筛选：user_id、invoice_id、status、payment_no、trade_no、plugin_id；sort 可选 ${SORT_KEYS.join('、')}。`,
  access: { surface: 'admin', permission: 'invoice.view' },
  request: {
    query: listQuery({
      user_id: idQuery().optional(),
      invoice_id: idQuery().optional(),
      status: z.enum(PAYMENT_STATUSES).optional(),
      payment_no: z.string().max(64).optional(),
      trade_no: z.string().max(64).optional(),
      plugin_id: idQuery().optional(),
      sort: sortQuery(SORT_KEYS).optional(),
    }),
  },
  data: pageSchema(adminPaymentSchema),
});

const detail = defineRoute({
  method: 'get',
  path: '/api/v2/admin/payments/{payment}',
  tags,
  summary: '支付单详情',
  access: { surface: 'admin', permission: 'invoice.view' },
  request: { params: idParam('payment') },
  data: adminPaymentSchema,
});

export const adminPaymentRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listDocuments(c.var.deps.db.models.Payment, query, ['user_id', 'invoice_id', 'status', 'payment_no', 'trade_no', 'plugin_id']);
    return ok(c, page(rows.map(adminPaymentResource), total, query));
  })
  .openapi(detail, async (c) => ok(c, adminPaymentResource(await findDocument(c.var.deps.db.models.Payment, c.req.valid('param').payment, '支付单'))));

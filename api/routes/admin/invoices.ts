import { z } from '@hono/zod-openapi';
import { INVOICE_STATUSES, INVOICE_TYPES, PAYMENT_CHANNELS } from '../../../db/models/billing.js';
import { getInvoiceDetail } from '../../../domain/billing/invoices/get-invoice-detail.js';
import { listDocuments } from '../../../domain/billing/lists/list-documents.js';
import { getUser } from '../../../domain/users/users.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { adminInvoiceDetailResource, adminInvoiceDetailSchema, adminInvoiceSummaryResource, adminInvoiceSummarySchema } from '../../resources/billing/invoice.js';
import { idParam, idQuery, listQuery, sortQuery } from '../../schemas.js';

const tags = ['管理端：财务单据'];
const SORT_KEYS = ['id', 'created_at', 'amount', 'paid_at'] as const;
const FILTERS = ['user_id', 'type', 'status', 'invoice_no', 'payment_channel', 'origin_invoice_id'] as const;

const filters = {
  type: z.enum(INVOICE_TYPES).optional(),
  status: z.enum(INVOICE_STATUSES).optional(),
  invoice_no: z.string().max(32).optional(),
  payment_channel: z.enum(PAYMENT_CHANNELS).optional(),
  origin_invoice_id: idQuery().optional(),
  sort: sortQuery(SORT_KEYS).optional(),
};

const list = defineRoute({
  method: 'get',
  path: '/api/v2/admin/invoices',
  tags,
  summary: '账单列表',
  description: `筛选：user_id、type、status、invoice_no、payment_channel、origin_invoice_id（红字账单的原账单）；sort 可选 ${SORT_KEYS.join('、')}（前缀 - 倒序），默认 -id。`,
  access: { surface: 'admin', permission: 'invoice.view' },
  request: { query: listQuery({ user_id: idQuery().optional(), ...filters }) },
  data: pageSchema(adminInvoiceSummarySchema),
});

const detail = defineRoute({
  method: 'get',
  path: '/api/v2/admin/invoices/{invoice}',
  tags,
  summary: '账单详情（含明细、订单与履约派发时间）',
  access: { surface: 'admin', permission: 'invoice.view' },
  request: { params: idParam('invoice') },
  data: adminInvoiceDetailSchema,
});

const userInvoices = defineRoute({
  method: 'get',
  path: '/api/v2/admin/users/{user}/invoices',
  tags,
  summary: '用户的账单',
  access: { surface: 'admin', permission: 'invoice.view' },
  request: { params: idParam('user'), query: listQuery(filters) },
  data: pageSchema(adminInvoiceSummarySchema),
});

export const adminInvoiceRoutes = createRouter()
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listDocuments(c.var.deps.db.models.Invoice, query, FILTERS);
    return ok(c, page(rows.map(adminInvoiceSummaryResource), total, query));
  })
  .openapi(detail, async (c) => {
    const found = await getInvoiceDetail(c.var.deps, c.req.valid('param').invoice);
    return ok(c, adminInvoiceDetailResource(found.invoice, found.items, found.order));
  })
  .openapi(userInvoices, async (c) => {
    const user = await getUser(c.var.deps, c.req.valid('param').user);
    const query = c.req.valid('query');
    const { rows, total } = await listDocuments(c.var.deps.db.models.Invoice, { ...query, user_id: user.id }, FILTERS);
    return ok(c, page(rows.map(adminInvoiceSummaryResource), total, query));
  });

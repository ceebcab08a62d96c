import { z } from '@hono/zod-openapi';
import { ErrorCode } from '../../../lib/errors.js';
import { userAudit } from '../../../domain/billing/audit.js';
import { INVOICE_STATUSES, INVOICE_TYPES } from '../../../db/models/billing.js';
import { cancelInvoice } from '../../../domain/billing/invoices/cancel-invoice.js';
import { createPurchaseInvoice } from '../../../domain/billing/invoices/create-purchase-invoice.js';
import { getInvoiceDetail } from '../../../domain/billing/invoices/get-invoice-detail.js';
import { listDocuments } from '../../../domain/billing/lists/list-documents.js';
import { ok, page, pageSchema } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { invoiceDetailResource, invoiceDetailSchema, invoiceSummaryResource, invoiceSummarySchema } from '../../resources/billing/invoice.js';
import { idInput, idParam, jsonBody, listQuery, sortQuery } from '../../schemas.js';

const tags = ['客户端：账单与支付'];
const SORT_KEYS = ['id', 'created_at', 'amount', 'paid_at'] as const;

const create = defineRoute({
  method: 'post',
  path: '/api/v2/client/invoices',
  tags,
  summary: '创建新购账单（按商品报价计价）',
  description:
    '由目录的报价函数在同一事务内计价，报价与账单永远一致：报价的各行成为账单明细，合计为账单金额。账单为 unpaid，同时生成 pending 订单（new_purchase）。quantity 为实例数（1 到 20），支付后每个实例生成一条服务记录。',
  access: { surface: 'client', precondition: 'purchase', tokenScope: 'purchase' },
  request: jsonBody(
    z.object({
      product_id: idInput('请选择商品'),
      billing_period: z.string({ error: '请选择计费周期' }).min(1).max(32),
      config: z.record(z.string(), z.union([z.number(), z.string()])).optional(),
      quantity: z.number().int().optional(),
      coupon_code: z.string().max(32).optional().openapi({ description: '优惠码（可选）。与报价同一计价函数：会员折扣与优惠券各为一行负数明细；优惠券使用随账单预占（已领完或达个人上限 40980），支付后生效，取消或过期释放' }),
    }),
  ),
  data: invoiceDetailSchema,
  errors: [ErrorCode.OUT_OF_STOCK, ErrorCode.NOT_PURCHASABLE_ONLINE, ErrorCode.PRICE_BELOW_UPSTREAM_COST, ErrorCode.COUPON_UNAVAILABLE],
  idempotent: true,
});

const list = defineRoute({
  method: 'get',
  path: '/api/v2/client/invoices',
  tags,
  summary: '我的账单',
  description: `按类型、状态筛选；sort 可选 ${SORT_KEYS.join('、')}（前缀 - 倒序），默认 -id。`,
  access: { surface: 'client' },
  request: {
    query: listQuery({ type: z.enum(INVOICE_TYPES).optional(), status: z.enum(INVOICE_STATUSES).optional(), sort: sortQuery(SORT_KEYS).optional() }),
  },
  data: pageSchema(invoiceSummarySchema),
});

const detail = defineRoute({
  method: 'get',
  path: '/api/v2/client/invoices/{id}',
  tags,
  summary: '账单详情',
  description: '白名单资源：不含原始状态与内部审计字段。',
  access: { surface: 'client' },
  request: { params: idParam('id') },
  data: invoiceDetailSchema,
});

const cancel = defineRoute({
  method: 'post',
  path: '/api/v2/client/invoices/{id}/cancel',
  tags,
  summary: '取消未支付的账单',
  description: '仅 unpaid 且没有进行中的扫码支付的账单可取消（40913）；已支付 40910，其他状态 40912。',
  access: { surface: 'client', tokenScope: 'purchase' },
  request: { params: idParam('id') },
  data: invoiceDetailSchema,
  errors: [ErrorCode.INVOICE_ALREADY_PAID, ErrorCode.INVOICE_NOT_PAYABLE, ErrorCode.PAYMENT_IN_PROGRESS],
});

export const clientInvoiceRoutes = createRouter()
  .openapi(create, async (c) => {
    const body = c.req.valid('json');
    const userId = c.var.client.id;
    const { invoice } = await createPurchaseInvoice(
      c.var.deps,
      { userId, productId: body.product_id, billingPeriod: body.billing_period, config: body.config ?? {}, quantity: body.quantity ?? 1, couponCode: body.coupon_code ?? null },
      userAudit(userId, c.var.requestId),
    );
    const found = await getInvoiceDetail(c.var.deps, invoice.id, userId);
    return ok(c, invoiceDetailResource(found.invoice, found.items, found.order), '账单已创建');
  })
  .openapi(list, async (c) => {
    const query = c.req.valid('query');
    const { rows, total } = await listDocuments(c.var.deps.db.models.Invoice, { ...query, user_id: c.var.client.id }, ['user_id', 'type', 'status']);
    return ok(c, page(rows.map(invoiceSummaryResource), total, query));
  })
  .openapi(detail, async (c) => {
    const found = await getInvoiceDetail(c.var.deps, c.req.valid('param').id, c.var.client.id);
    return ok(c, invoiceDetailResource(found.invoice, found.items, found.order));
  })
  .openapi(cancel, async (c) => {
    const userId = c.var.client.id;
    const cancelled = await cancelInvoice(c.var.deps, { userId, invoiceId: c.req.valid('param').id });
    const found = await getInvoiceDetail(c.var.deps, cancelled.id, userId);
    return ok(c, invoiceDetailResource(found.invoice, found.items, found.order), '账单已取消');
  });

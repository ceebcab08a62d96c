import { z } from '@hono/zod-openapi';
import { ErrorCode } from '../../../lib/errors.js';
import { userAudit } from '../../../domain/billing/audit.js';
import { getInvoiceDetail } from '../../../domain/billing/invoices/get-invoice-detail.js';
import { findServiceView } from '../../../domain/services/find-service.js';
import { createRenewalInvoice } from '../../../domain/services/renewals/create-renewal-invoice.js';
import { previewRenewal } from '../../../domain/services/renewals/preview-renewal.js';
import { ok } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { invoiceDetailResource, invoiceDetailSchema } from '../../resources/billing/invoice.js';
import { renewalPreviewResource, renewalPreviewSchema } from '../../resources/renewal.js';
import { idParam, jsonBody } from '../../schemas.js';

const tags = ['客户端：服务续费与流量包'];

const RULE =
  '价格规则：服务自己的计费周期按购买时锁定的价格（price）续费；其他周期仅在商品仍在售且定价该周期时提供，按商品当前定价与服务的配置由统一计价函数计算（1 个实例）；一次性付费（onetime）的服务不续费。续费完成后到期时间从当前到期时间顺延（已过期也从原到期时间顺延，与上游一致；没有到期时间则从现在起算）。';

const preview = defineRoute({
  method: 'get',
  path: '/api/v2/client/services/{id}/renew',
  tags,
  summary: '续费预览（可选周期与价格）',
  description: `${RULE}不可续费时 renewable 为 false 并给出原因。`,
  access: { surface: 'client' },
  request: { params: idParam('id') },
  data: renewalPreviewSchema,
});

const create = defineRoute({
  method: 'post',
  path: '/api/v2/client/services/{id}/renew',
  tags,
  summary: '创建续费账单',
  description: [
    `${RULE}`,
    '账单类型 renew（payload 含 service_id、billing_period、months），通过 pay/* 支付；支付后工作流 renew:<invoice_no> 向上游续费一次并顺延到期时间。',
    '每个服务最多一张未支付的续费账单：相同周期返回已有账单（message 说明），其他周期 40940（请先支付或取消）；上一笔续费仍在处理中 40941；服务不可续费（非运行中或已暂停、一次性付费）40942；周期不可选 42200。',
  ].join('\n\n'),
  access: { surface: 'client', tokenScope: 'purchase' },
  request: {
    params: idParam('id'),
    ...jsonBody(
      z.object({
        billing_period: z.string({ error: '请选择续费周期' }).min(1).max(32),
        coupon_code: z.string().max(32).optional().openapi({ description: '优惠码（可选，须可用于续费）；会员折扣自动计入' }),
      }),
    ),
  },
  data: invoiceDetailSchema,
  errors: [ErrorCode.RENEWAL_INVOICE_EXISTS, ErrorCode.SERVICE_ORDER_IN_PROGRESS, ErrorCode.SERVICE_NOT_RENEWABLE, ErrorCode.COUPON_UNAVAILABLE],
  idempotent: true,
});

export const clientServiceRenewalRoutes = createRouter()
  .openapi(preview, async (c) => {
    return ok(c, renewalPreviewResource(await previewRenewal(c.var.deps, { serviceId: c.req.valid('param').id, userId: c.var.client.id })));
  })
  .openapi(create, async (c) => {
    const userId = c.var.client.id;
    const service = await findServiceView(c.var.deps, c.req.valid('param').id, userId);
    const { invoice, created } = await createRenewalInvoice(
      c.var.deps,
      { serviceId: service.id, billingPeriod: c.req.valid('json').billing_period, source: 'client', couponCode: c.req.valid('json').coupon_code ?? null },
      userAudit(userId, c.var.requestId),
    );
    const found = await getInvoiceDetail(c.var.deps, invoice.id, userId);
    return ok(c, invoiceDetailResource(found.invoice, found.items, found.order), created ? '续费账单已创建' : '已有相同周期的未支付续费账单');
  });

import { z } from '@hono/zod-openapi';
import { ErrorCode } from '../../../lib/errors.js';
import { userAudit } from '../../../domain/billing/audit.js';
import { INVOICE_STATUSES } from '../../../db/models/billing.js';
import { withInvoiceDetail } from '../../../domain/billing/invoices/get-invoice-detail.js';
import { payInvoiceByBalance } from '../../../domain/billing/payments/pay-invoice-by-balance.js';
import { getQrPaymentStatus } from '../../../domain/billing/payments/payment-status.js';
import { startQrPayment } from '../../../domain/billing/payments/start-qr-payment.js';
import { ok } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { invoiceDetailResource, invoiceDetailSchema } from '../../resources/billing/invoice.js';
import { paymentResource, paymentSchema } from '../../resources/billing/payment.js';
import { idParam } from '../../schemas.js';

const tags = ['客户端：账单与支付'];

const payBalance = defineRoute({
  method: 'post',
  path: '/api/v2/client/invoices/{id}/pay/balance',
  tags,
  summary: '余额支付',
  description:
    '在账单行锁与账户行锁下原子完成：一笔负数 payment 流水、账单结清、订单已支付、新购生成服务并派发开通。重复支付只结算一次，第二次答 40910（账单已支付）；余额不足 40911；有进行中的扫码支付 40913；充值账单不能用余额支付（42200）。',
  access: { surface: 'client', tokenScope: 'purchase' },
  request: { params: idParam('id') },
  data: invoiceDetailSchema,
  errors: [ErrorCode.INVOICE_ALREADY_PAID, ErrorCode.INSUFFICIENT_BALANCE, ErrorCode.INVOICE_NOT_PAYABLE, ErrorCode.PAYMENT_IN_PROGRESS],
  idempotent: true,
});

const payQr = defineRoute({
  method: 'post',
  path: '/api/v2/client/invoices/{id}/pay/qrpay',
  tags,
  summary: '创建扫码支付（可先用余额抵扣，组合支付）',
  description:
    'use_balance=true 时先扣除可用余额（余额足以支付全部时请直接用余额支付，42200），余下部分生成扫码支付单；二维码在支付窗口内有效（QRPAY_PAYMENT_WINDOW_SECONDS），过期后关闭交易并退回余额抵扣部分。支付单等待支付期间重复调用返回同一支付单。qr_code_url 是买家扫码的 URL（从不返回 base64 图片）。网关创建失败答 50300。',
  access: { surface: 'client', tokenScope: 'purchase' },
  request: {
    params: idParam('id'),
    body: { content: { 'application/json': { schema: z.object({ use_balance: z.boolean().optional() }) } }, required: false },
  },
  data: paymentSchema,
  errors: [ErrorCode.INVOICE_ALREADY_PAID, ErrorCode.INVOICE_NOT_PAYABLE, ErrorCode.PAYMENT_IN_PROGRESS, ErrorCode.DEPENDENCY_UNAVAILABLE],
  idempotent: true,
});

const qrStatus = defineRoute({
  method: 'get',
  path: '/api/v2/client/invoices/{id}/pay/qrpay/status',
  tags,
  summary: '查询扫码支付状态（来自本平台记录）',
  description: '只读本平台的记录（到账由网关通知或支付工作流的查询写入），不直接询问网关。payment 为该账单最近一笔扫码支付单，没有时为 null。',
  access: { surface: 'client' },
  request: { params: idParam('id') },
  data: z.object({ invoice_id: z.number().int(), invoice_no: z.string(), invoice_status: z.enum(INVOICE_STATUSES), paid: z.boolean(), payment: paymentSchema.nullable() }),
});

export const clientPaymentRoutes = createRouter()
  .openapi(payBalance, async (c) => {
    const userId = c.var.client.id;
    const paid = await payInvoiceByBalance(c.var.deps, { userId, invoiceId: c.req.valid('param').id }, userAudit(userId, c.var.requestId));
    const found = await withInvoiceDetail(c.var.deps, paid.invoice, paid.items);
    return ok(c, invoiceDetailResource(found.invoice, found.items, found.order), '支付成功');
  })
  .openapi(payQr, async (c) => {
    const userId = c.var.client.id;
    const body = c.req.header('content-type')?.includes('application/json') ? c.req.valid('json') : {};
    const started = await startQrPayment(
      c.var.deps,
      { userId, invoiceId: c.req.valid('param').id, useBalance: body?.use_balance === true },
      userAudit(userId, c.var.requestId),
    );
    return ok(c, paymentResource(started.payment), started.created ? '请扫码支付' : '支付单等待支付中');
  })
  .openapi(qrStatus, async (c) => {
    const { invoice, payment } = await getQrPaymentStatus(c.var.deps, c.var.client.id, c.req.valid('param').id);
    return ok(c, {
      invoice_id: invoice.id,
      invoice_no: invoice.invoice_no,
      invoice_status: invoice.status,
      paid: invoice.paid_at !== null,
      payment: payment ? paymentResource(payment) : null,
    });
  });

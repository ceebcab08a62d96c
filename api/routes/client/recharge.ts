import { z } from '@hono/zod-openapi';
import { ErrorCode, validationError } from '../../../lib/errors.js';
import { money } from '../../../lib/money.js';
import { userAudit } from '../../../domain/billing/audit.js';
import { RECHARGE_MAX_AMOUNT, RECHARGE_MIN_AMOUNT } from '../../../domain/billing/constants.js';
import { INVOICE_STATUSES } from '../../../db/models/billing.js';
import { getQrPaymentStatus } from '../../../domain/billing/payments/payment-status.js';
import { createRecharge } from '../../../domain/billing/recharge/create-recharge.js';
import { ok } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { paymentResource, paymentSchema } from '../../resources/billing/payment.js';
import { dateTimeString, idParam, jsonBody, moneyInput, moneyString } from '../../schemas.js';
import { formatDateTime } from '../../../lib/time.js';
import { formatMoney } from '../../../lib/money.js';

const tags = ['客户端：余额与充值'];

const rechargeState = z
  .object({
    invoice_id: z.number().int(),
    invoice_no: z.string(),
    status: z.enum(INVOICE_STATUSES),
    amount: moneyString,
    paid: z.boolean(),
    paid_at: dateTimeString.nullable(),
    payment: paymentSchema.nullable(),
  })
  .openapi('RechargeState');

const create = defineRoute({
  method: 'post',
  path: '/api/v2/client/recharge',
  tags,
  summary: '充值：创建充值账单并生成扫码支付',
  description: `金额 ${RECHARGE_MIN_AMOUNT} 到 ${RECHARGE_MAX_AMOUNT} 元，最多两位小数。生成 recharge 类型账单并立即创建扫码支付；到账后余额入账并生成 user_recharge 充值记录。用 GET /api/v2/client/recharge/{invoice_id} 轮询状态；二维码过期后可用 pay/qrpay 重新生成。`,
  access: { surface: 'client', precondition: 'recharge', tokenScope: 'purchase' },
  request: jsonBody(z.object({ amount: moneyInput })),
  data: rechargeState,
  errors: [ErrorCode.DEPENDENCY_UNAVAILABLE],
  idempotent: true,
});

const state = defineRoute({
  method: 'get',
  path: '/api/v2/client/recharge/{id}',
  tags,
  summary: '充值状态（按充值账单 id）',
  access: { surface: 'client' },
  request: { params: idParam('id') },
  data: rechargeState,
});

export const clientRechargeRoutes = createRouter()
  .openapi(create, async (c) => {
    const userId = c.var.client.id;
    const amount = money(c.req.valid('json').amount);
    if (amount.lte(0)) throw validationError({ amount: ['充值金额必须大于 0'] });
    const started = await createRecharge(c.var.deps, { userId, amount }, userAudit(userId, c.var.requestId));
    return ok(
      c,
      {
        invoice_id: started.invoiceId,
        invoice_no: started.invoiceNo,
        status: 'unpaid' as const,
        amount: formatMoney(amount),
        paid: false,
        paid_at: null,
        payment: paymentResource(started.payment),
      },
      '请扫码支付',
    );
  })
  .openapi(state, async (c) => {
    const { invoice, payment } = await getQrPaymentStatus(c.var.deps, c.var.client.id, c.req.valid('param').id);
    if (invoice.type !== 'recharge') throw validationError({ id: ['该账单不是充值账单'] });
    return ok(c, {
      invoice_id: invoice.id,
      invoice_no: invoice.invoice_no,
      status: invoice.status,
      amount: formatMoney(invoice.amount),
      paid: invoice.paid_at !== null,
      paid_at: formatDateTime(invoice.paid_at),
      payment: payment ? paymentResource(payment) : null,
    });
  });

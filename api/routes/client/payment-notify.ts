import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { AppError, defaultMessages, ErrorCode } from '../../../lib/errors.js';
import { systemAudit } from '../../../domain/billing/audit.js';
import { QRPAY_NOTIFY_PATH } from '../../../domain/billing/constants.js';
import { handleQrNotification } from '../../../domain/billing/payments/handle-qr-notification.js';
import { errorEnvelopeSchema } from '../../envelope.js';
import { guardStrings, limitBody } from '../../middleware/input-guard.js';
import { createRouter, openQuery } from '../../openapi/define-route.js';
import { documentAccess, operationIdFor } from '../../openapi/operations.js';

const describe = (codes: number[]) => codes.map((c) => `${c} ${defaultMessages[c] ?? ''}`).join('；');
const errorResponse = (codes: number[]) => ({ description: describe(codes), content: { 'application/json': { schema: errorEnvelopeSchema } } });

/** A gateway notification is a small form; anything else is not one (40000, nothing read further). */
const NOTIFY_BODY_LIMIT_BYTES = 16 * 1024;
const formOnly: MiddlewareHandler = async (c, next) => {
  if (!/^application\/x-www-form-urlencoded\b/i.test(c.req.header('content-type') ?? '')) {
    throw new AppError(ErrorCode.BAD_REQUEST, '支付通知格式不正确：应为 application/x-www-form-urlencoded 表单');
  }
  await next();
};

/**
 * The gateway's notification receiver (spec: Events 2). Open: the plugin's signature check
 * is the authentication. It answers the plain text `success` the gateway expects (exempt from
 * the JSON envelope, like file streams); every failure is the usual envelope, so the gateway
 * retries.
 */
const notify = createRoute({
  operationId: operationIdFor('post', QRPAY_NOTIFY_PATH),
  method: 'post',
  path: QRPAY_NOTIFY_PATH,
  tags: ['客户端：账单与支付'],
  summary: '扫码支付网关异步通知',
  description:
    '公开接口（以签名校验代替登录）。先由支付插件 payment.verify_notify 验签与校验应用 ID：签名无效答 40001（HTTP 401），应用 ID 不符答 40918；再核对本平台支付单存在（40400）且金额完全一致（40916）。成功或重复的通知都答纯文本 success（不套 JSON 信封），重复通知不改变任何数据；非支付成功状态的通知同样答 success 且不做处理。请求体须为 application/x-www-form-urlencoded 表单（最多 16 KB），否则答 40000，不做任何处理。',
  ...documentAccess({ surface: 'public' }),
  // The gateway calls the notify_url as it was registered and may add its own parameters; the
  // signed form is what is checked. Refusing a parameter would only make the gateway retry a
  // paid notification for a day (spec qrpay-and-certify: notify).
  ...openQuery('网关异步通知：按注册的 notify_url 调用，可能附带网关自己的查询参数；以签名校验的表单为准，拒绝只会让网关不断重试'),
  middleware: [limitBody(NOTIFY_BODY_LIMIT_BYTES), formOnly, guardStrings] as const,
  request: {
    body: {
      content: { 'application/x-www-form-urlencoded': { schema: z.record(z.string(), z.string()) } },
      required: true,
    },
  },
  responses: {
    200: { description: '纯文本 success', content: { 'text/plain': { schema: z.string().openapi({ example: 'success' }) } } },
    400: errorResponse([ErrorCode.BAD_REQUEST]),
    413: errorResponse([ErrorCode.PAYLOAD_TOO_LARGE]),
    401: errorResponse([ErrorCode.SIGNATURE_INVALID]),
    404: errorResponse([ErrorCode.NOT_FOUND]),
    409: errorResponse([ErrorCode.PAYMENT_AMOUNT_MISMATCH, ErrorCode.NOTIFY_APP_MISMATCH]),
    422: errorResponse([ErrorCode.VALIDATION]),
    500: errorResponse([ErrorCode.INTERNAL]),
  },
});

export const clientPaymentNotifyRoutes = createRouter().openapi(notify, async (c) => {
  const fields = c.req.valid('form');
  await handleQrNotification(c.var.deps, fields, systemAudit(c.var.requestId));
  return c.text('success', 200);
});

import { createRoute, z } from '@hono/zod-openapi';
import { defaultMessages, ErrorCode } from '../../../lib/errors.js';
import { CAPTCHA_IMAGE_PATH, captchaImage, consumeCaptcha, createCaptchaChallenge } from '../../../domain/auth/captcha.js';
import { requestPasswordReset, resetPassword, sendEmailVerification, verifyEmail } from '../../../domain/auth/codes.js';
import { formatDateTime } from '../../../lib/time.js';
import { errorEnvelopeSchema, ok } from '../../envelope.js';
import { requestMeta } from '../../middleware/request-meta.js';
import { refuseUnknownQuery } from '../../middleware/query-keys.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { documentAccess, operationIdFor } from '../../openapi/operations.js';
import { dateTimeString, jsonBody, newPassword } from '../../schemas.js';

const tags = ['客户端：认证'];
const code = z.string({ error: '请输入验证码' }).max(16, { error: '验证码不正确或已过期' });
const channel = z.enum(['email', 'sms'], { error: '请选择邮箱或短信' });
const account = z.string({ error: '请输入邮箱或手机号' }).min(1, { error: '请输入邮箱或手机号' }).max(191);
const SENT_MESSAGE = '如果该账号存在，验证码已发送，请查收';

const captcha = defineRoute({
  method: 'get',
  path: '/api/v2/client/auth/captcha',
  tags,
  summary: '获取图形验证码',
  description: '答 challenge_id 与图片地址 image_url（SVG）；在重置密码发送验证码时提交 challenge_id 与识别结果。每个验证码只能提交一次。未启用图形验证码插件时 40400。',
  access: { surface: 'public' },
  data: z.object({ challenge_id: z.string(), image_url: z.string(), expires_at: dateTimeString.nullable() }),
  errors: [ErrorCode.NOT_FOUND, ErrorCode.TOO_MANY_REQUESTS, ErrorCode.DEPENDENCY_UNAVAILABLE],
});

const describe = (codes: number[]) => codes.map((c) => `${c} ${defaultMessages[c] ?? ''}`).join('；');
const errorResponse = (codes: number[]) => ({ description: describe(codes), content: { 'application/json': { schema: errorEnvelopeSchema } } });

const captchaImageRoute = createRoute({
  operationId: operationIdFor('get', CAPTCHA_IMAGE_PATH),
  method: 'get',
  path: CAPTCHA_IMAGE_PATH,
  tags,
  summary: '图形验证码图片（SVG）',
  description: '公开接口。未使用且未过期的验证码返回 image/svg+xml；否则 40400。',
  ...documentAccess({ surface: 'public' }),
  middleware: [refuseUnknownQuery(['id'])] as const,
  request: { query: z.object({ id: z.string().max(64).optional() }) },
  responses: {
    200: { description: 'SVG 图片', content: { 'image/svg+xml': { schema: z.string() } } },
    404: errorResponse([ErrorCode.NOT_FOUND]),
    422: errorResponse([ErrorCode.VALIDATION]),
    500: errorResponse([ErrorCode.INTERNAL]),
  },
});

const emailSend = defineRoute({
  method: 'post',
  path: '/api/v2/client/auth/email/verification',
  tags,
  summary: '发送邮箱验证码',
  description: '向当前账号的邮箱发送 6 位验证码（有效期与频率限制见 README“身份验证”）。邮箱已验证 40900；过于频繁 42900。',
  access: { surface: 'client' },
  data: z.null(),
  errors: [ErrorCode.CONFLICT, ErrorCode.TOO_MANY_REQUESTS],
});

const emailVerify = defineRoute({
  method: 'post',
  path: '/api/v2/client/auth/email/verify',
  tags,
  summary: '验证邮箱',
  description: '提交邮箱收到的验证码。验证码只能使用一次，错误次数有限；错误或过期 42200。',
  access: { surface: 'client' },
  request: jsonBody(z.object({ code })),
  data: z.null(),
  errors: [ErrorCode.CONFLICT],
});

const resetCode = defineRoute({
  method: 'post',
  path: '/api/v2/client/auth/password/reset-code',
  tags,
  summary: '发送重置密码验证码（邮箱或短信）',
  description:
    '先校验图形验证码（GET /api/v2/client/auth/captcha），再向账号的邮箱或手机发送验证码。无论账号是否存在，答复都相同；按账号、地址与 IP 限制发送频率（42900）。',
  access: { surface: 'public' },
  request: jsonBody(
    z.object({
      channel,
      account,
      captcha_id: z.string({ error: '请先获取图形验证码' }).max(64),
      captcha_answer: z.string({ error: '请输入图形验证码' }).max(16),
    }),
  ),
  data: z.null(),
  errors: [ErrorCode.TOO_MANY_REQUESTS, ErrorCode.DEPENDENCY_UNAVAILABLE],
});

const reset = defineRoute({
  method: 'post',
  path: '/api/v2/client/auth/password/reset',
  tags,
  summary: '用验证码重置密码（所有会话失效）',
  description: '验证码只能使用一次、错误次数有限；错误、过期或账号不存在都答同样的 42200。成功后账号的所有登录会话失效。',
  access: { surface: 'public' },
  request: jsonBody(z.object({ channel, account, code, new_password: newPassword })),
  data: z.null(),
});

export const clientAuthCodeRoutes = createRouter()
  .openapi(captcha, async (c) => {
    const challenge = await createCaptchaChallenge(c.var.deps, requestMeta(c).ip);
    return ok(c, { challenge_id: challenge.challengeId, image_url: challenge.imageUrl, expires_at: formatDateTime(challenge.expiresAt) });
  })
  .openapi(captchaImageRoute, async (c) => {
    const svg = await captchaImage(c.var.deps, c.req.valid('query').id ?? '');
    c.header('Cache-Control', 'no-store');
    return c.body(svg, 200, { 'Content-Type': 'image/svg+xml; charset=utf-8' });
  })
  .openapi(emailSend, async (c) => {
    await sendEmailVerification(c.var.deps, c.var.client.id, requestMeta(c).ip);
    return ok(c, null, '验证码已发送到您的邮箱');
  })
  .openapi(emailVerify, async (c) => {
    await verifyEmail(c.var.deps, c.var.client.id, c.req.valid('json').code.trim());
    return ok(c, null, '邮箱验证成功');
  })
  .openapi(resetCode, async (c) => {
    const body = c.req.valid('json');
    await consumeCaptcha(c.var.deps, body.captcha_id, body.captcha_answer);
    await requestPasswordReset(c.var.deps, { channel: body.channel === 'email' ? 'mail' : 'sms', account: body.account, ip: requestMeta(c).ip });
    return ok(c, null, SENT_MESSAGE);
  })
  .openapi(reset, async (c) => {
    const body = c.req.valid('json');
    await resetPassword(c.var.deps, { channel: body.channel === 'email' ? 'mail' : 'sms', account: body.account, code: body.code.trim(), newPassword: body.new_password });
    return ok(c, null, '密码已重置，请重新登录');
  });

import { createRoute, z } from '@hono/zod-openapi';
import { defaultMessages, ErrorCode } from '../../../lib/errors.js';
import { ATTEMPT_KINDS } from '../../../domain/verification/attempt-record.js';
import { getFeeConfig, initVerification, restartVerification } from '../../../domain/verification/attempts.js';
import { getVerificationStatus, handleVerificationCallback, issueQrCode, QR_IMAGE_PATH, renderQrImage, SCAN_PATH, scanTarget } from '../../../domain/verification/client.js';
import { envelopeSchema, errorEnvelopeSchema, ok } from '../../envelope.js';
import { limitBody } from '../../middleware/input-guard.js';
import { refuseUnknownQuery } from '../../middleware/query-keys.js';
import { createRouter, defineRoute, openQuery } from '../../openapi/define-route.js';
import { documentAccess, operationIdFor } from '../../openapi/operations.js';
import { attemptResource, attemptSchema, verificationUserResource, verificationUserSchema } from '../../resources/verification.js';
import { jsonBody, moneyString } from '../../schemas.js';

const tags = ['客户端：实名认证'];
const CALLBACK_PATH = '/api/v2/client/verification/callback';

const feeConfigSchema = z
  .object({
    free_attempts: z.number().int().openapi({ description: '每个账号的免费认证次数' }),
    used_free_attempts: z.number().int(),
    remaining_free_attempts: z.number().int(),
    fee: moneyString.openapi({ description: '免费次数用完后每次认证的费用（元）' }),
    next_attempt_fee: moneyString.openapi({ description: '下一次发起认证需支付的金额；0.00 表示免费' }),
    attempt_seconds: z.number().int().openapi({ description: '一次认证的有效期（秒）' }),
  })
  .openapi('VerificationFeeConfig');

const feeConfig = defineRoute({
  method: 'get',
  path: '/api/v2/client/verification/fee-config',
  tags,
  summary: '实名认证费用配置',
  access: { surface: 'client', tokenScope: 'none' },
  data: feeConfigSchema,
});

const init = defineRoute({
  method: 'post',
  path: '/api/v2/client/verification/init',
  tags,
  summary: '发起实名认证',
  description:
    '提交真实姓名与身份证号（校验位检查）。姓名与身份证号加密保存，之后只以掩码显示。免费次数内（或费用为 0）立即开始认证并返回 certify_id（服务商暂不可用时为 null，稍后获取二维码会补开）；否则生成 verification 类型账单（invoice），用余额或扫码支付该账单后认证自动开始。已实名 40970；有进行中的认证 40971；有待支付的认证账单 40974；该身份已用于其他账号 40972（不透露是哪个账号）。',
  access: { surface: 'client' },
  request: jsonBody(
    z.object({
      name: z.string({ error: '请填写真实姓名' }).max(32, { error: '姓名最多 32 个字' }),
      id_number: z.string({ error: '请填写身份证号' }).max(32, { error: '身份证号格式不正确' }),
      kind: z.enum(ATTEMPT_KINDS).optional().openapi({ description: 'face 人脸（默认）或 cert_photo 证件照' }),
    }),
  ),
  data: z.object({
    certify_id: z.string().nullable(),
    attempt: attemptSchema,
    invoice: z.object({ id: z.number().int(), invoice_no: z.string(), amount: moneyString }).nullable(),
  }),
  errors: [
    ErrorCode.VERIFICATION_ALREADY_VERIFIED,
    ErrorCode.VERIFICATION_IN_PROGRESS,
    ErrorCode.VERIFICATION_IDENTITY_IN_USE,
    ErrorCode.VERIFICATION_AWAITING_PAYMENT,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
  ],
});

const qrcode = defineRoute({
  method: 'post',
  path: '/api/v2/client/verification/qrcode',
  tags,
  summary: '获取认证二维码（图片地址）',
  description:
    '为进行中的认证生成扫码凭证（旧二维码随之失效）。url 是二维码图片（SVG）的地址，不返回 base64；二维码内容是本平台的扫码中转地址 scan_url，手机扫码后跳转到服务商的认证页面。没有进行中的认证 40400。',
  access: { surface: 'client' },
  data: z.object({ url: z.string(), scan_url: z.string(), certify_id: z.string().nullable(), expires_at: z.string().nullable() }),
  errors: [ErrorCode.NOT_FOUND, ErrorCode.CONFLICT, ErrorCode.DEPENDENCY_UNAVAILABLE],
});

const status = defineRoute({
  method: 'get',
  path: '/api/v2/client/verification/status',
  tags,
  summary: '实名认证状态（本人）',
  description: '只看当前登录用户自己的状态与最近一次认证；结果由平台向服务商查询确定，客户端轮询本接口即可。',
  access: { surface: 'client', tokenScope: 'none' },
  data: z.object({ ...verificationUserSchema, attempt: attemptSchema.nullable() }),
});

const restart = defineRoute({
  method: 'post',
  path: '/api/v2/client/verification/restart',
  tags,
  summary: '重新发起认证（不重复收费）',
  description: '最近一次认证仍在进行或已过期时，关闭它并用同一身份信息重新开始，不计免费次数、不再收费。未通过或没有认证时 40973。',
  access: { surface: 'client' },
  data: z.object({ certify_id: z.string().nullable(), attempt: attemptSchema }),
  errors: [ErrorCode.VERIFICATION_ALREADY_VERIFIED, ErrorCode.VERIFICATION_NOT_RESTARTABLE, ErrorCode.VERIFICATION_IDENTITY_IN_USE, ErrorCode.CONFLICT],
});

const describe = (codes: number[]) => codes.map((c) => `${c} ${defaultMessages[c] ?? ''}`).join('；');
const errorResponse = (codes: number[]) => ({ description: describe(codes), content: { 'application/json': { schema: errorEnvelopeSchema } } });
const tokenQuery = z.object({ token: z.string().max(128).optional().openapi({ description: '二维码中的扫码凭证' }) });

/** The phone scanning the QR code has no session: the scan token is the credential. */
const scan = createRoute({
  operationId: operationIdFor('get', SCAN_PATH),
  method: 'get',
  path: SCAN_PATH,
  tags,
  summary: '扫码中转（跳转到服务商认证页）',
  description:
    '公开接口（以二维码中的扫码凭证代替登录）。凭证有效且认证进行中、未过期时 302 跳转到服务商为该认证签发的认证页面（请求头 Accept 为 application/json 时改为 200，信封 data.url 为该地址）；跳转地址只来自服务商的应答，不接受任何请求参数作为地址。否则 40400。',
  ...documentAccess({ surface: 'public' }),
  // The QR code is opened by a phone's camera or a chat app, which append their own parameters
  // (share and tracking marks); only the scan token is read.
  ...openQuery('扫码打开：手机相机与聊天应用会附加自己的参数（分享、统计标记）；只读取 token'),
  request: { query: tokenQuery },
  responses: {
    200: { description: '认证页面地址（Accept: application/json 时）', content: { 'application/json': { schema: envelopeSchema(z.object({ url: z.string() })) } } },
    302: { description: '跳转到服务商认证页面' },
    404: errorResponse([ErrorCode.NOT_FOUND]),
    422: errorResponse([ErrorCode.VALIDATION]),
    503: errorResponse([ErrorCode.DEPENDENCY_UNAVAILABLE]),
    500: errorResponse([ErrorCode.INTERNAL]),
  },
});

const qrImage = createRoute({
  operationId: operationIdFor('get', QR_IMAGE_PATH),
  method: 'get',
  path: QR_IMAGE_PATH,
  tags,
  summary: '认证二维码图片（SVG）',
  description: '公开接口（凭证即二维码内容）。凭证有效时返回 image/svg+xml；否则 40400。',
  ...documentAccess({ surface: 'public' }),
  middleware: [refuseUnknownQuery(['token'])] as const,
  request: { query: tokenQuery },
  responses: {
    200: { description: 'SVG 图片', content: { 'image/svg+xml': { schema: z.string() } } },
    404: errorResponse([ErrorCode.NOT_FOUND]),
    422: errorResponse([ErrorCode.VALIDATION]),
    500: errorResponse([ErrorCode.INTERNAL]),
  },
});

const CALLBACK_BODY_LIMIT_BYTES = 16 * 1024;
const callbackDescription =
  '公开接口（以签名校验代替登录）。在任何处理之前先由实名认证插件 verification.verify_callback 校验应用 ID、时间窗口、HMAC-SHA256 签名与 nonce 重放：失败答 40001（HTTP 401），不做任何处理。回调不携带结果，只提示平台查询：平台随后向服务商查询该认证，结果只作用于回调所指的认证及其所属用户，且只生效一次；重复或迟到的回调不改变任何数据。认证不存在 40400。请求体最多 16 KB。';
const callbackResponses = {
  200: { description: '已接收', content: { 'application/json': { schema: z.object({ code: z.number(), message: z.string(), data: z.object({ received: z.boolean() }) }) } } },
  401: errorResponse([ErrorCode.SIGNATURE_INVALID]),
  404: errorResponse([ErrorCode.NOT_FOUND]),
  413: errorResponse([ErrorCode.PAYLOAD_TOO_LARGE]),
  500: errorResponse([ErrorCode.INTERNAL]),
};

const callbackPost = createRoute({
  operationId: operationIdFor('post', CALLBACK_PATH),
  method: 'post',
  path: CALLBACK_PATH,
  tags,
  summary: '实名认证服务商异步回调',
  description: callbackDescription,
  ...documentAccess({ surface: 'public' }),
  // The provider's callback: its parameters are the provider's (signed with the path and query).
  ...openQuery('服务商回调：查询参数由服务商决定，签名覆盖路径与查询串'),
  middleware: [limitBody(CALLBACK_BODY_LIMIT_BYTES)] as const,
  responses: callbackResponses,
});

const callbackGet = createRoute({
  operationId: operationIdFor('get', CALLBACK_PATH),
  method: 'get',
  path: CALLBACK_PATH,
  tags,
  summary: '实名认证服务商异步回调（GET）',
  description: `${callbackDescription} GET 回调的 certify_id 在查询参数中，签名覆盖路径与查询串。`,
  ...documentAccess({ surface: 'public' }),
  ...openQuery('服务商回调：查询参数由服务商决定，签名覆盖路径与查询串'),
  responses: callbackResponses,
});

function headersOf(raw: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['x-app-id', 'x-timestamp', 'x-nonce', 'x-signature']) {
    const value = raw.get(name);
    if (value !== null) out[name] = value.slice(0, 256);
  }
  return out;
}

function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

export const clientVerificationRoutes = createRouter()
  .openapi(feeConfig, async (c) => ok(c, await getFeeConfig(c.var.deps, c.var.client.id)))
  .openapi(init, async (c) => {
    const body = c.req.valid('json');
    const { attempt, invoice } = await initVerification(c.var.deps, c.var.client.id, { name: body.name, id_number: body.id_number, kind: body.kind ?? 'face' }, c.var.requestId);
    const message = invoice ? '请支付实名认证费用，支付后认证自动开始' : attempt.certify_id ? '实名认证已发起，请扫码完成认证' : '实名认证已发起，认证服务暂时繁忙，请稍后获取二维码';
    return ok(c, { certify_id: attempt.certify_id, attempt: attemptResource(attempt), invoice: invoice ? { ...invoice, id: Number(invoice.id) } : null }, message);
  })
  .openapi(qrcode, async (c) => {
    const issued = await issueQrCode(c.var.deps, c.var.client.id);
    return ok(c, { url: issued.url, scan_url: issued.scanUrl, certify_id: issued.attempt.certify_id, expires_at: attemptResource(issued.attempt).expires_at });
  })
  .openapi(status, async (c) => {
    const view = await getVerificationStatus(c.var.deps, c.var.client.id);
    return ok(c, { ...verificationUserResource(view.user), attempt: view.attempt ? attemptResource(view.attempt) : null });
  })
  .openapi(restart, async (c) => {
    const attempt = await restartVerification(c.var.deps, c.var.client.id);
    return ok(c, { certify_id: attempt.certify_id, attempt: attemptResource(attempt) }, '已重新发起实名认证');
  })
  .openapi(scan, async (c) => {
    const target = await scanTarget(c.var.deps, c.req.valid('query').token ?? '');
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    if (/application\/json/i.test(c.req.header('accept') ?? '')) return ok(c, { url: target }, '请在认证页面完成实名认证');
    return c.redirect(target, 302);
  })
  .openapi(qrImage, async (c) => {
    const svg = await renderQrImage(c.var.deps, c.req.valid('query').token ?? '');
    c.header('Cache-Control', 'no-store');
    return c.body(svg, 200, { 'Content-Type': 'image/svg+xml; charset=utf-8' });
  })
  .openapi(callbackPost, async (c) => {
    const body = await c.req.text();
    await handleVerificationCallback(c.var.deps, { headers: headersOf(c.req.raw.headers), body, method: 'POST', path: pathOf(c.req.url) }, c.var.requestId);
    return ok(c, { received: true }, '已接收');
  })
  .openapi(callbackGet, async (c) => {
    await handleVerificationCallback(c.var.deps, { headers: headersOf(c.req.raw.headers), body: '', method: 'GET', path: pathOf(c.req.url) }, c.var.requestId);
    return ok(c, { received: true }, '已接收');
  });

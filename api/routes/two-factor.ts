import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  completeTwoFactorLogin,
  confirmEnrolment,
  disableTwoFactor,
  renderEnrolmentQr,
  startEnrolment,
  TWO_FACTOR_QR_PATH,
  twoFactorRequiredFor,
  twoFactorStatus,
  type TwoFactorSubject,
  verifySecondFactor,
} from '../../domain/auth/two-factor.js';
import { ErrorCode, notFound } from '../../lib/errors.js';
import { formatDateTime } from '../../lib/time.js';
import { offerAuditRequest } from '../../lib/request-context.js';
import type { AppEnv } from '../context.js';
import { ok } from '../envelope.js';
import { refuseUnknownQuery } from '../middleware/query-keys.js';
import { SIGNED_LINK_ERRORS, signedLinkFields } from './secure-assets.js';
import { guardStrings } from '../middleware/input-guard.js';
import { requestMeta } from '../middleware/request-meta.js';
import { createRouter, defineRoute } from '../openapi/define-route.js';
import { documentAccess, operationIdFor } from '../openapi/operations.js';
import { adminResource, adminSchema, tokenSchema, userResource, userSchema } from '../resources/accounts.js';
import { jsonBody as json } from '../schemas.js';

/**
 * Two-factor sign-in (docs/security.md), the same routes on both surfaces: status, enrolment
 * (URI + QR link), confirmation (recovery codes, shown once), step-up verification, turning it
 * off, and the login's code step. The domain code is one (`domain/auth/two-factor.ts`); the
 * surface is a parameter.
 */

const otp = z
  .string()
  .regex(/^[0-9]{6}$/, { error: '验证码为 6 位数字' })
  .openapi({ description: '身份验证器应用显示的 6 位验证码（TOTP，30 秒一换）' });
const recoveryCode = z
  .string()
  .min(8, { error: '恢复码格式不正确' })
  .max(32, { error: '恢复码格式不正确' })
  .openapi({ description: '绑定时给出的 10 个一次性恢复码之一（形如 ABCDE-FGHJK），用后作废' });
const factorBody = z
  .object({ otp: otp.optional(), recovery_code: recoveryCode.optional() })
  .openapi({ description: 'otp 与 recovery_code 二选一' });

/** The answer of a password step or a code step (documented exactly: the spec leaves login fields open). */
export function loginAnswerSchema<K extends 'admin' | 'user'>(key: K, account: K extends 'admin' ? typeof adminSchema : typeof userSchema) {
  const signedIn = z
    .object({
      two_factor_required: z.literal(false),
      two_factor_enrolment_required: z.boolean().openapi({
        description: 'true：系统设置要求此管理员开启两步验证而尚未绑定；令牌仅可用于绑定两步验证（/auth/2fa、/auth/2fa/enrol、/auth/2fa/confirm）、查看自己（/auth/me）、刷新与退出，其他接口 40300。绑定确认后同一令牌即成为完整令牌。客户端恒为 false。',
      }),
      ...tokenSchema,
      [key]: account,
    } as { two_factor_required: z.ZodLiteral<false>; two_factor_enrolment_required: z.ZodBoolean } & typeof tokenSchema & Record<K, typeof account>)
    .openapi({ description: '已登录：返回访问令牌' });
  const challenged = z
    .object({
      two_factor_required: z.literal(true),
      challenge_token: z.string().openapi({ description: '第二步（POST …/login/2fa）用的一次性凭证；不能作为访问令牌' }),
      challenge_expires_in: z.number().int().openapi({ description: '凭证有效期（秒），300' }),
    })
    .openapi({ description: '密码正确且已开启两步验证：尚未登录，请用 challenge_token 与验证码完成第二步' });
  return z.union([signedIn, challenged]);
}

export const LOGIN_DESCRIPTION =
  '两步登录：已开启两步验证的账号，密码正确时不返回令牌，而是 `{two_factor_required: true, challenge_token, challenge_expires_in}`；' +
  '再以 `POST …/login/2fa {challenge_token, otp}`（或 `recovery_code`）换取令牌。未开启时直接返回 `{two_factor_required: false, two_factor_enrolment_required, access_token, token_type, expires_in, …}`。' +
  '密码错误、验证码错误同样计入登录限流（42900）。';

type Surface = 'admin' | 'client';

/**
 * Operation ids are letters only: these paths keep the short `2fa` segment, and their ids are
 * made by the usual rule from the spelled-out path (`adminAuthTwoFactorVerify`).
 */
export function twoFactorOperationId(method: 'get' | 'post', path: string): string {
  return operationIdFor(method, path.replace(/\/2fa(?=\/|$)/, '/two-factor'));
}

function subjectOf(c: Context<AppEnv>, surface: Surface): Promise<TwoFactorSubject> | TwoFactorSubject {
  if (surface === 'admin') return { surface, subjectId: c.var.admin.id, account: c.var.admin.username };
  return (async () => {
    const user = await c.var.deps.db.models.User.findByPk(c.var.client.id);
    if (!user) throw notFound('用户不存在');
    return { surface, subjectId: user.id, account: user.email ?? user.phone ?? String(user.id) };
  })();
}

function sessionOf(c: Context<AppEnv>, surface: Surface): string {
  return surface === 'admin' ? c.var.admin.sessionId : c.var.client.sessionId;
}

async function requiredFor(c: Context<AppEnv>, surface: Surface): Promise<boolean> {
  return surface === 'admin' ? twoFactorRequiredFor(c.var.deps, c.var.admin) : false;
}

/** Records which kind of factor was posted, never the factor itself (the audit's request fields). */
function auditFactor(body: { otp?: string | undefined; recovery_code?: string | undefined }) {
  offerAuditRequest({ second_factor: body.recovery_code !== undefined ? 'recovery_code' : 'totp' });
}

function routesFor(surface: Surface) {
  const base = `/api/v2/${surface}/auth/2fa`;
  const tags = [surface === 'admin' ? '管理端：认证与管理员' : '客户端：认证'];
  const access = surface === 'admin' ? ({ surface: 'admin', duringEnrolment: true } as const) : ({ surface: 'client', tokenScope: 'none' } as const);
  const plainAccess = surface === 'admin' ? ({ surface: 'admin' } as const) : ({ surface: 'client', tokenScope: 'none' } as const);

  const status = defineRoute({
    method: 'get',
    path: base,
    operationId: twoFactorOperationId('get', base),
    tags,
    summary: '两步验证状态',
    access,
    data: z.object({
      enabled: z.boolean(),
      pending: z.boolean().openapi({ description: '已开始绑定、尚未用首个验证码确认' }),
      confirmed_at: z.string().nullable(),
      recovery_codes_remaining: z.number().int(),
      required: z.boolean().openapi({ description: '系统设置是否要求本账号开启（仅管理员）' }),
    }),
  });

  const enrol = defineRoute({
    method: 'post',
    path: `${base}/enrol`,
    operationId: twoFactorOperationId('post', `${base}/enrol`),
    tags,
    summary: '开始绑定两步验证（返回 otpauth URI 与二维码链接）',
    description:
      '生成新的密钥（替换未确认的绑定）。otpauth_uri 含密钥，仅此一次返回；qr_url 为短时有效的签名图片链接（PNG，不缓存），供 <img> 直接显示。随后以首个验证码调用 confirm。已开启时 40900。',
    access,
    data: z.object({
      otpauth_uri: z.string().openapi({ description: 'otpauth://totp/…（RFC 6238，SHA1，6 位，30 秒）' }),
      qr_url: z.string().openapi({ description: `相对 API 根的签名链接（${TWO_FACTOR_QR_PATH}?…），有效期见 qr_expires_in` }),
      qr_expires_in: z.number().int(),
    }),
    errors: [ErrorCode.CONFLICT],
  });

  const confirm = defineRoute({
    method: 'post',
    path: `${base}/confirm`,
    operationId: twoFactorOperationId('post', `${base}/confirm`),
    tags,
    summary: '以首个验证码确认绑定（返回 10 个一次性恢复码，仅此一次）',
    description: '确认后本会话视为刚完成两步验证；仅能绑定的受限令牌即成为完整令牌。验证码错误 42200（计入登录限流）。',
    access,
    request: json(z.object({ otp })),
    data: z.object({ recovery_codes: z.array(z.string()).openapi({ description: '10 个一次性恢复码，仅此一次返回，请妥善保存' }) }),
    errors: [ErrorCode.CONFLICT, ErrorCode.TOO_MANY_REQUESTS],
  });

  const verify = defineRoute({
    method: 'post',
    path: `${base}/verify`,
    operationId: twoFactorOperationId('post', `${base}/verify`),
    tags,
    summary: '重新验证两步验证码（敏感操作前，刷新本会话的验证时间）',
    description: '敏感操作答 40302 时调用；成功后在系统设置 security.step_up_max_age_minutes 分钟内可执行敏感操作。错误或已用过的验证码 42200（计入登录限流）。',
    access: plainAccess,
    request: json(factorBody),
    data: z.object({ verified_at: z.string(), method: z.enum(['totp', 'recovery_code']) }),
    errors: [ErrorCode.CONFLICT, ErrorCode.TOO_MANY_REQUESTS],
  });

  const disable = defineRoute({
    method: 'post',
    path: `${base}/disable`,
    operationId: twoFactorOperationId('post', `${base}/disable`),
    tags,
    summary: '关闭自己的两步验证（需当前验证码或恢复码）',
    description: '系统设置要求开启的管理员不能关闭（42200）。',
    access: plainAccess,
    request: json(factorBody),
    data: z.null(),
    errors: [ErrorCode.CONFLICT, ErrorCode.TOO_MANY_REQUESTS],
  });

  return createRouter()
    .openapi(status, async (c) => {
      const state = await twoFactorStatus(c.var.deps, surface, surface === 'admin' ? c.var.admin.id : c.var.client.id);
      return ok(c, {
        enabled: state.enabled,
        pending: state.pending,
        confirmed_at: state.confirmedAt ? formatDateTime(state.confirmedAt) : null,
        recovery_codes_remaining: state.recoveryCodesRemaining,
        required: await requiredFor(c, surface),
      });
    })
    .openapi(enrol, async (c) => {
      const started = await startEnrolment(c.var.deps, await subjectOf(c, surface));
      c.header('cache-control', 'no-store');
      return ok(c, { otpauth_uri: started.otpauthUri, qr_url: started.qrUrl, qr_expires_in: started.qrExpiresIn }, '请用身份验证器扫描二维码，并输入首个验证码确认');
    })
    .openapi(confirm, async (c) => {
      const { otp: code } = c.req.valid('json');
      offerAuditRequest({ second_factor: 'totp' });
      const { recoveryCodes } = await confirmEnrolment(c.var.deps, await subjectOf(c, surface), sessionOf(c, surface), code, requestMeta(c));
      c.header('cache-control', 'no-store');
      return ok(c, { recovery_codes: recoveryCodes }, '两步验证已开启，请妥善保存恢复码');
    })
    .openapi(verify, async (c) => {
      const body = c.req.valid('json');
      auditFactor(body);
      const { method } = await verifySecondFactor(c.var.deps, await subjectOf(c, surface), sessionOf(c, surface), body, requestMeta(c));
      return ok(c, { verified_at: formatDateTime(new Date()) as string, method }, '验证成功');
    })
    .openapi(disable, async (c) => {
      const body = c.req.valid('json');
      auditFactor(body);
      await disableTwoFactor(c.var.deps, await subjectOf(c, surface), body, requestMeta(c), await requiredFor(c, surface));
      return ok(c, null, '两步验证已关闭');
    });
}

function loginCodeRoute<D extends z.ZodType>(surface: Surface, data: D) {
  return defineRoute({
    method: 'post',
    path: `/api/v2/${surface}/login/2fa`,
    operationId: twoFactorOperationId('post', `/api/v2/${surface}/login/2fa`),
    tags: [surface === 'admin' ? '管理端：认证与管理员' : '客户端：认证'],
    summary: '两步登录第二步：提交验证码（或恢复码）换取令牌',
    description: `${LOGIN_DESCRIPTION} 同一验证码只能用一次（并发的两个登录只有一个成功）；恢复码用后作废。challenge_token 一次性、5 分钟有效，失效时 40100。`,
    access: { surface: 'public' },
    request: json(factorBody.extend({ challenge_token: z.string().min(1).max(128) })),
    data,
    errors: [ErrorCode.UNAUTHENTICATED, ErrorCode.TOO_MANY_REQUESTS],
  });
}

export const adminTwoFactorRoutes = routesFor('admin').openapi(loginCodeRoute('admin', loginAnswerSchema('admin', adminSchema)), async (c) => {
  const deps = c.var.deps;
  const { subjectId, token } = await completeTwoFactorLogin(deps, 'admin', c.req.valid('json'), requestMeta(c));
  const admin = await deps.db.models.Admin.findByPk(subjectId, { include: [{ association: 'role' }] });
  if (!admin) throw notFound('管理员不存在');
  return ok(c, { two_factor_required: false as const, two_factor_enrolment_required: false, ...token, admin: adminResource(admin) }, '登录成功');
});

export const clientTwoFactorRoutes = routesFor('client').openapi(loginCodeRoute('client', loginAnswerSchema('user', userSchema)), async (c) => {
  const deps = c.var.deps;
  const { subjectId, token } = await completeTwoFactorLogin(deps, 'client', c.req.valid('json'), requestMeta(c));
  const user = await deps.db.models.User.findByPk(subjectId);
  if (!user) throw notFound('用户不存在');
  return ok(c, { two_factor_required: false as const, two_factor_enrolment_required: false, ...token, user: userResource(user) }, '登录成功');
});


/** The enrolment's QR image by URL (the spec rules images are URLs, never base64). */
const qrImage = createRoute({
  operationId: operationIdFor('get', TWO_FACTOR_QR_PATH),
  method: 'get',
  path: TWO_FACTOR_QR_PATH,
  tags: ['文件'],
  summary: '两步验证绑定二维码（签名链接，PNG）',
  description:
    '公开接口（以签名校验代替登录：<img> 无法带令牌）。链接由 …/auth/2fa/enrol 的 qr_url 给出，10 分钟有效，仅在绑定确认前可用。签名无效 40300；过期 41000（HTTP 410）；已确认或已重新开始 40400。成功时返回 image/png（不套 JSON 信封），Cache-Control: no-store。',
  ...documentAccess({ surface: 'public' }),
  middleware: [refuseUnknownQuery(['enrolment', 'expires', 'sig']), guardStrings] as const,
  request: {
    query: z.object({
      enrolment: z.string().regex(/^[1-9][0-9]{0,8}$/, { error: '参数 enrolment 格式不正确' }).transform(Number),
      ...signedLinkFields,
    }),
  },
  responses: {
    200: { description: '二维码图片', content: { 'image/png': { schema: z.string().openapi({ format: 'binary' }) } } },
    ...SIGNED_LINK_ERRORS,
  },
});

export const twoFactorQrRoutes = createRouter().openapi(qrImage, async (c) => {
  const png = await renderEnrolmentQr(c.var.deps, c.req.valid('query'));
  return c.body(new Uint8Array(png), 200, {
    'content-type': 'image/png',
    'content-length': String(png.length),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'cross-origin-resource-policy': 'same-site',
  }) as never;
});

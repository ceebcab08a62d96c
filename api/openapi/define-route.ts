import { createRoute, OpenAPIHono, type RouteConfig, type z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { defaultMessages, ErrorCode, httpStatusFor } from '../../lib/errors.js';
import type { AppEnv } from '../context.js';
import { envelopeSchema, errorEnvelopeSchema } from '../envelope.js';
import { accessCheck, preconditionCheck, secondFactorCheck } from '../middleware/auth.js';
import { auditAdminWrite } from '../middleware/operations.js';
import { idempotentRoute } from '../middleware/idempotency.js';
import { checkStrings, JSON_BODY_LIMIT_BYTES, limitBody } from '../middleware/input-guard.js';
import { unknownBodyKeysCheck } from '../middleware/body-keys.js';
import { queryKeysOf, unknownQueryCheck } from '../middleware/query-keys.js';
import { type RouteCheck, runChecks } from '../middleware/route-checks.js';
import { throwValidationError } from '../middleware/validation.js';
import type { AccessAction } from '../../lib/config.js';
import { resolveAccess, type Access } from './access.js';
import { documentAccess, operationIdFor } from './operations.js';

type RequestSpec = NonNullable<RouteConfig['request']>;

type RouteSpec<R extends RequestSpec, D extends z.ZodType> = {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  tags: string[];
  summary: string;
  description?: string;
  access: Access;
  request?: R;
  data: D;
  /** Business error codes beyond those implied by access, input and path. */
  errors?: number[];
  /** Honours an `Idempotency-Key` header (creating POSTs of a logged-in surface; docs/api.md "Idempotency keys"). */
  idempotent?: boolean;
  /** Only where `operationIdFor(method, path)` would collide with another route's id. */
  operationId?: string;
  /** Upload routes only (multipart bodies): the body size refused before it is read, instead of the JSON limit. */
  bodyLimitBytes?: number;
  /**
   * Only for a route that must take query parameters it does not declare (a third party's
   * callback, a link others build): the reason, written to the document as `x-open-query`.
   * Every other route refuses an undeclared query parameter with 42200 naming it.
   */
  openQuery?: string;
};

function queryText(spec: { openQuery?: string | undefined }): string | undefined {
  return spec.openQuery ? `接受未声明的查询参数：${spec.openQuery}` : undefined;
}

/**
 * Marks in the document a route that takes query parameters it does not declare, with the
 * reason; `defineRoute` and the hand-made routes (`createRoute`) use it alike. Every route
 * without it refuses them (`refuseUnknownQuery`), which `test/api/unknown-query.test.ts` checks
 * over HTTP for every operation of the document.
 */
export function openQuery(reason: string | undefined) {
  return reason ? { 'x-open-query': reason } : {};
}

function accessText(access: Access): string {
  if (access.surface === 'public') return '公开接口';
  if (access.surface === 'client') {
    const login = access.precondition ? `需要客户登录；操作 ${access.precondition} 可能需要已验证邮箱或实名认证（由设置决定，否则 40301）` : '需要客户登录';
    const scope = access.tokenScope ?? 'none';
    return `${login}\n\n${scope === 'none' ? '个人访问令牌：不可使用（仅限登录令牌）' : `个人访问令牌：需要权限范围 ${scope}`}`;
  }
  const text = access.permission ? `需要管理员登录，权限 ${access.permission}` : '需要管理员登录';
  const stepUp = access.stepUp
    ? '；敏感操作（step-up）：已开启两步验证的管理员须在系统设置 security.step_up_max_age_minutes 分钟内验证过验证码，否则 40302，先调用 POST /api/v2/admin/auth/2fa/verify'
    : '';
  const enrolment = access.duringEnrolment ? '；仅能绑定两步验证的受限令牌也可调用' : '';
  return `${text}${stepUp}${enrolment}`;
}

/**
 * One route of the OpenAPI document: the envelope around `data`, every error code the route
 * can answer (with its HTTP status), and the access rule enforced by middleware. The access
 * rule is also written to `x-access` (read back by the auth-matrix test) and `security`; the
 * operation id follows `operationIdFor`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a route without input has an empty request
export function defineRoute<D extends z.ZodType, R extends RequestSpec = {}>(declared: RouteSpec<R, D>) {
  const spec = { ...declared, access: resolveAccess(declared.access, declared.method) };
  if (spec.access.surface === 'client' && spec.method !== 'get' && spec.access.tokenScope === 'read') {
    throw new Error(`${spec.method.toUpperCase()} ${spec.path}: 写操作的 tokenScope 只能是 purchase、console 或 none`);
  }
  const codes = new Set<number>(spec.errors ?? []);
  // Any route can be sent an undeclared query parameter, which is refused (42200) unless the route is open to them.
  if (spec.request || !spec.openQuery) codes.add(ErrorCode.VALIDATION);
  const queryRule = spec.openQuery ? null : unknownQueryCheck(spec.request?.query ? queryKeysOf(spec.request.query) : []);
  // A JSON body's undeclared keys are refused (42200 naming them) as the query's are; an open map declares itself (z.record, z.looseObject).
  const jsonBody = (spec.request?.body?.content as Record<string, { schema?: unknown }> | undefined)?.['application/json']?.schema;
  const bodyRule = jsonBody ? unknownBodyKeysCheck(jsonBody as z.ZodType) : null;
  if (spec.request?.body) codes.add(ErrorCode.MALFORMED_BODY).add(ErrorCode.PAYLOAD_TOO_LARGE).add(ErrorCode.UNSUPPORTED_MEDIA_TYPE);
  if (spec.access.surface !== 'public') codes.add(ErrorCode.UNAUTHENTICATED).add(ErrorCode.FORBIDDEN);
  if (spec.access.surface === 'admin' && spec.access.stepUp) codes.add(ErrorCode.STEP_UP_REQUIRED);
  if (spec.path.includes('{')) codes.add(ErrorCode.NOT_FOUND);
  const precondition = spec.access.surface === 'client' ? spec.access.precondition : undefined;
  if (precondition) codes.add(ErrorCode.PRECONDITION_REQUIRED);
  codes.add(ErrorCode.INTERNAL);
  const idempotency = spec.idempotent ? idempotentRoute(spec) : null;
  if (idempotency) codes.add(ErrorCode.VALIDATION).add(ErrorCode.IDEMPOTENCY_KEY_IN_PROGRESS);

  const byStatus = new Map<number, number[]>();
  for (const code of [...codes].sort((a, b) => a - b)) {
    const status = httpStatusFor(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const errorResponses = Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      {
        description: list.map((c) => `${c} ${defaultMessages[c] ?? ''}`.trim()).join('；'),
        content: { 'application/json': { schema: errorEnvelopeSchema } },
      },
    ]),
  );

  return createRoute({
    operationId: spec.operationId ?? operationIdFor(spec.method, spec.path),
    method: spec.method,
    path: spec.path,
    tags: spec.tags,
    summary: spec.summary,
    description: [spec.description, queryText(spec), accessText(spec.access)].filter(Boolean).join('\n\n'),
    ...documentAccess(spec.access),
    ...openQuery(spec.openQuery),
    middleware: routeMiddleware(spec, queryRule, bodyRule, precondition, idempotency?.middleware),
    request: (idempotency ? { ...spec.request, headers: idempotency.headers } : (spec.request ?? {})) as R,
    responses: {
      200: { description: '成功', content: { 'application/json': { schema: envelopeSchema(spec.data) } } },
      ...errorResponses,
    },
  });
}

/**
 * What runs before a route's validators, built from its declaration, in this order: the body's
 * size (before anything reads the body), who may call (access: surface, token, permission, token
 * scope), for admin writes the audit (so the refusals after it are audited too: enrol-only
 * session, step-up), the admin's second factor, undeclared query keys (after access: a caller
 * without it learns nothing; before the client's e-mail / real-name precondition: the request is
 * wrong whoever sends it), the precondition, the strings every route refuses, undeclared JSON
 * body keys, then a replayed
 * answer for a repeated idempotency key. Consecutive checks run in one middleware (`runChecks`),
 * which also parses the query string once for them and the query validator: a read has one hop
 * here instead of four.
 */
function routeMiddleware(
  spec: { method: string; path: string; access: Access; request?: RequestSpec | undefined; bodyLimitBytes?: number | undefined },
  queryRule: RouteCheck | null,
  bodyRule: RouteCheck | null,
  precondition: AccessAction | undefined,
  idempotency: MiddlewareHandler<AppEnv> | undefined,
): MiddlewareHandler<AppEnv>[] {
  const access = spec.access;
  const afterAccess: RouteCheck[] = [
    ...(access.surface === 'admin' ? [secondFactorCheck(access)] : []),
    ...(queryRule ? [queryRule] : []),
    ...(precondition ? [preconditionCheck(precondition)] : []),
    checkStrings,
    ...(bodyRule ? [bodyRule] : []),
  ];
  const allowed = accessCheck(access);
  // Every admin write is audited, here and only here (docs/operations.md "Admin audit"), refused ones included.
  const audited = access.surface === 'admin' && spec.method !== 'get';
  return [
    ...(spec.request?.body ? [limitBody(spec.bodyLimitBytes ?? JSON_BODY_LIMIT_BYTES)] : []),
    ...(audited ? [runChecks(allowed ? [allowed] : []), auditAdminWrite(spec), runChecks(afterAccess)] : [runChecks(allowed ? [allowed, ...afterAccess] : afterAccess)]),
    ...(idempotency ? [idempotency] : []),
  ];
}

/** A router whose validation failures become the 42200 envelope. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: (result) => (result.success ? undefined : throwValidationError(result.error)) });
}

import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { AppError, ErrorCode } from '../../lib/errors.js';
import { auditOutsideTransaction, httpRequestDuration, httpRequests, label } from '../../lib/metrics.js';
import { redactBounded } from '../../lib/redact.js';
import { createdTarget, currentRequestContext, runWithRequestContext, type PendingAudit } from '../../lib/request-context.js';
import { insertAuditRecord, type AuditRequestRecord } from '../../domain/logs/admin-audit.js';
import type { AppEnv } from '../context.js';
import { requestMeta } from './request-meta.js';
import { SITE_PREFIX } from './security-headers.js';

/** Paths never written to the request log (probes and scrapes would drown it); still counted in metrics. */
const UNLOGGED = new Set(['/api/health', '/metrics']);


/**
 * Whether a request becomes a row of the request log (`api-logs`). Not the probes and scrapes,
 * and not the public catalogue's answered reads: the storefront is read thousands of times a
 * second, and a row for each would make the log a second copy of the traffic (one INSERT per
 * page view) while telling an admin nothing a counter does not. Those are counted in metrics
 * (`http_requests_total` by route template and status). A site request that fails (4xx, 5xx) is
 * still a row: scanners, broken links and errors are what the log is read for.
 */
export function requestLogged(path: string, status: number): boolean {
  if (UNLOGGED.has(path)) return false;
  return !(status < 400 && path.startsWith(SITE_PREFIX));
}

/** Hono's `:name` as the OpenAPI `{name}`; unmatched paths collapse to one label (no concrete path ever becomes a label). */
export function routeTemplate(c: Context<AppEnv>): string {
  let path: string;
  try {
    path = routePath(c, -1);
  } catch {
    return 'unmatched';
  }
  if (!path || path.includes('*')) return 'unmatched';
  return path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');
}

/** The envelope code of the answer: set by `fail`, 0 for a 2xx envelope, null for answers that are not envelopes. */
function answerCode(c: Context<AppEnv>): number | null {
  const code = c.get('responseCode');
  if (typeof code === 'number') return code;
  const type = c.res.headers.get('content-type') ?? '';
  return c.res.status < 400 && type.startsWith('application/json') ? ErrorCode.OK : null;
}

/**
 * Around every request: the request context (request id, address) for code below, then the
 * request's metrics and its row in the request log, both after the answer is made. The log row
 * is queued (written in batches by `deps.operations`); nothing here can fail the request.
 */
export const observeRequests: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now();
  const deps = c.var.deps;
  let ip = '';
  let userAgent = '';
  try {
    ({ ip, userAgent } = requestMeta(c));
  } catch {
    // An address that cannot be read is logged as empty.
  }
  try {
    await runWithRequestContext({ requestId: c.var.requestId, ip, userAgent }, next);
  } finally {
    try {
      const seconds = (performance.now() - started) / 1000;
      const route = routeTemplate(c);
      const status = c.res.status;
      const code = answerCode(c);
      httpRequests.inc({ method: c.req.method, route, status: String(status), code: code === null ? '' : String(code) });
      httpRequestDuration.observe({ method: c.req.method, route }, seconds);
      if (requestLogged(c.req.path, status)) {
        deps.operations?.requestLog.push({
          method: c.req.method,
          route,
          status,
          code,
          durationMs: seconds * 1000,
          userId: c.get('client')?.id ?? null,
          adminId: c.get('admin')?.id ?? null,
          ip,
          requestId: c.var.requestId,
          at: new Date(),
        });
      }
      if (deps.logger.isLevelEnabled('debug')) {
        deps.logger.debug({ requestId: c.var.requestId, method: c.req.method, path: route, status, ms: Math.round(seconds * 1000) }, 'request');
      }
    } catch (err) {
      deps.logger.warn({ err }, 'request not observed');
    }
  }
};

/** Audit target and action of an admin write from its route template (OpenAPI form) and method. */
export function auditShape(method: string, path: string, params: Record<string, string>) {
  const segments = path.split('/').filter(Boolean);
  const paramAt = segments.map((s, i) => (s.startsWith('{') ? i : -1)).filter((i) => i >= 0);
  const last = paramAt.at(-1);
  let target: { type: string; id: string } | null = null;
  if (last !== undefined) {
    const name = (segments[last] as string).slice(1, -1);
    const type = name === 'id' || name === 'key' ? (segments[last - 1] ?? name) : name;
    target = { type, id: params[name] ?? '' };
  }
  const tail = segments.at(-1) ?? '';
  let action: string;
  if (method === 'DELETE') action = 'delete';
  else if (method === 'PUT' || method === 'PATCH') action = 'update';
  else if (tail.startsWith('{')) action = 'update';
  else if (last === undefined) action = 'create';
  else action = tail;
  return { target, action, collection: tail.startsWith('{') ? (segments.at(-2) ?? tail) : tail };
}

async function requestFields(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  const fields: Record<string, unknown> = {};
  const params = c.req.param() as Record<string, string>;
  if (Object.keys(params).length) fields.params = params;
  const query = c.req.query();
  if (Object.keys(query).length) fields.query = query;
  const type = c.req.header('content-type') ?? '';
  if (/^application\/([a-z0-9.+-]+\+)?json\b/i.test(type)) {
    try {
      fields.body = await c.req.json();
    } catch {
      fields.body = '[unparseable]';
    }
  } else if (type) {
    fields.body = `[${type.split(';')[0]?.slice(0, 64)}]`;
  }
  return fields;
}

async function answerData(res: Response): Promise<unknown> {
  const type = res.headers.get('content-type') ?? '';
  const length = Number(res.headers.get('content-length') ?? 0);
  if (!type.startsWith('application/json') || length > 262_144) return null;
  try {
    const body = (await res.clone().json()) as { data?: unknown };
    return body?.data ?? null;
  } catch {
    return null;
  }
}

/**
 * The admin audit, installed by `defineRoute` on every admin route that is not a GET, right
 * after the access check (the admin is known; refusals after it are audited with their code).
 * One `request` row per call: route template, target, action, outcome, the redacted request
 * fields, the `before` a domain function offered, request id and address.
 *
 * Every change of the call commits with a row (lib/request-context.ts, `writePendingAudit`):
 * the first transaction that commits inserts the `request` row before its COMMIT, complete with
 * what is known then (status 200 and code 0, the outcome of a committed change; the target from
 * the path, `offerAuditTarget`, or the first row a create inserted in its collection's table);
 * each later transaction that commits inserts an `answer` row naming the call. When the row
 * cannot be written the change is rolled back and the call answers an error (fail closed).
 * After the handler, before the answer leaves:
 * - something committed: an `answer` row records the answer (status, code, the answer's data
 *   as `after`, a target the answer names), awaited, so an answer is never sent unrecorded; a
 *   crash before it leaves the change with its `request` row, and the admin without an answer.
 *   The routes show it merged into the row;
 * - nothing committed (refused, invalid, failed, or a call that wrote nothing): the whole row is
 *   written then, one INSERT of its own. A 2xx answer here is logged as a warning and counted
 *   (`admin_audit_outside_transaction_total`): either the call wrote nothing in the database, or
 *   it wrote where no helper could add the row (a raw pg write outside `inTransaction`), which
 *   must be fixed. Writes through Sequelize outside a transaction are wrapped (db/sequelize.ts).
 * A failure to write the rows after the change never fails the answer (the change has its row).
 */
export function auditAdminWrite(route: { method: string; path: string }): MiddlewareHandler<AppEnv> {
  const method = route.method.toUpperCase();
  return async (c, next) => {
    const admin = c.get('admin');
    const context = currentRequestContext();
    const writer = c.var.deps.operations?.audit;
    if (!admin || !context || !writer) return next();
    const shape = auditShape(method, route.path, c.req.param() as Record<string, string>);
    const fields = await requestFields(c);
    const base = (): AuditRequestRecord => {
      const target = context.auditTarget ?? shape.target ?? createdTarget(context, shape.collection);
      return {
        adminId: admin.id,
        adminName: admin.username,
        method,
        route: route.path,
        status: 200,
        code: ErrorCode.OK,
        targetType: target?.type ?? null,
        targetId: target?.id ?? null,
        action: shape.action,
        before: context.auditBefore === undefined ? null : redactBounded(context.auditBefore),
        after: null,
        request: redactBounded(context.auditRequest !== undefined ? context.auditRequest : fields),
        requestId: c.var.requestId,
        ip: context.ip,
        userAgent: context.userAgent,
        at: new Date(),
      };
    };
    const pending: PendingAudit = {
      written: false,
      closed: false,
      open: 0,
      write: (query, source) => insertAuditRecord(query, source === 'request' ? base() : { ...base(), source, before: null, request: null }),
    };
    context.pendingAudit = pending;
    let thrown: unknown = null;
    try {
      await next();
    } catch (err) {
      thrown = err;
      throw err;
    } finally {
      const written = pending.written;
      pending.closed = true;
      try {
        const outcome = await answerOutcome(c, thrown, shape.collection);
        const target = context.auditTarget ?? shape.target ?? outcome.target ?? createdTarget(context, shape.collection);
        if (written) {
          const record = base();
          const adds = outcome.status !== record.status || outcome.code !== record.code || outcome.after !== null || target?.id !== record.targetId;
          if (adds) {
            // Awaited: the answer leaves once it is recorded (a failure is logged and counted, never the answer's).
            await writer.record({
              ...record,
              source: 'answer',
              status: outcome.status,
              code: outcome.code,
              targetType: target?.type ?? null,
              targetId: target?.id ?? null,
              before: null,
              request: null,
              after: outcome.after === null ? null : redactBounded(outcome.after),
            });
          }
        } else {
          writer.write({
            ...base(),
            status: outcome.status,
            code: outcome.code,
            targetType: target?.type ?? null,
            targetId: target?.id ?? null,
            after: outcome.after === null ? null : redactBounded(outcome.after),
          });
          if (outcome.status < 400) {
            auditOutsideTransaction.inc({ route: label(route.path) });
            c.var.deps.logger.warn({ requestId: c.var.requestId, route: route.path }, 'admin write answered 2xx with no transaction that wrote its audit row (it changed nothing in the database, or wrote beside one): row written after the answer');
          }
        }
      } catch (err) {
        c.var.deps.logger.error({ err, requestId: c.var.requestId, route: route.path }, 'admin audit not recorded');
      }
    }
  };
}

/** Status, envelope code, answer data and the target the answer names (a created row's `id`). */
async function answerOutcome(c: Context<AppEnv>, thrown: unknown, collection: string) {
  let status: number;
  let code: number | null;
  if (thrown) {
    status = thrown instanceof AppError ? thrown.httpStatus : 500;
    code = thrown instanceof AppError ? thrown.code : ErrorCode.INTERNAL;
  } else {
    status = c.res.status;
    code = answerCode(c);
  }
  const after = !thrown && status < 400 ? await answerData(c.res) : null;
  let target: { type: string; id: string } | null = null;
  if (after && typeof after === 'object' && 'id' in after && (typeof after.id === 'number' || typeof after.id === 'string')) {
    target = { type: collection, id: String(after.id) };
  }
  return { status, code, after, target };
}

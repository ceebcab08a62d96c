import { z } from '@hono/zod-openapi';
import { AppError, ErrorCode } from '../../lib/errors.js';
import { ok } from '../envelope.js';
import { createRouter, defineRoute } from '../openapi/define-route.js';

const health = defineRoute({
  method: 'get',
  path: '/api/health',
  tags: ['系统'],
  summary: '健康检查：数据库与 Temporal 连通性',
  description:
    '数据库与 Temporal 的检查结果最多缓存 1 秒（同一秒内与检查进行中到达的探测共用一次检查）。全部正常时 code 为 0；任一依赖不可用时 HTTP 503、code 50300，data 中标明哪一项不可用。进程正在停止（收到 SIGTERM 后的摘流阶段）时同样 HTTP 503、code 50300，' +
    'data.status 为 stopping，负载均衡据此摘除该实例，进行中的请求仍会完成。',
  access: { surface: 'public' },
  // Load balancers and uptime monitors probe with URLs of their own making (cache busters, probe ids).
  openQuery: '负载均衡与监控探针可能附加自己的参数（防缓存、探针编号）；健康检查不读取任何参数',
  data: z.object({ status: z.enum(['ok', 'degraded']), database: z.enum(['ok', 'down']), temporal: z.enum(['ok', 'down']) }),
  errors: [ErrorCode.DEPENDENCY_UNAVAILABLE],
});

type Health = { status: 'ok' | 'degraded'; database: 'ok' | 'down'; temporal: 'ok' | 'down' };

/** How old a dependency check a probe may be answered from (balancers probe constantly). */
export const HEALTH_CHECK_MAX_AGE_MS = 1000;
const checks = new WeakMap<object, { at: number; result: Promise<Health> }>();

/**
 * The database and Temporal checked at most once a second per app (its deps): probes within
 * that second, and probes that arrive while a check runs, share its answer.
 */
function checkDependencies(deps: { db: { sequelize: { query: (sql: string) => Promise<unknown> } }; temporal: { check: () => Promise<boolean> } }): Promise<Health> {
  const now = Date.now();
  const cached = checks.get(deps);
  if (cached && now - cached.at < HEALTH_CHECK_MAX_AGE_MS) return cached.result;
  const result = Promise.all([deps.db.sequelize.query('SELECT 1').then(() => true, () => false), deps.temporal.check().catch(() => false)]).then(
    ([database, temporalUp]): Health => ({
      status: database && temporalUp ? 'ok' : 'degraded',
      database: database ? 'ok' : 'down',
      temporal: temporalUp ? 'ok' : 'down',
    }),
  );
  checks.set(deps, { at: now, result });
  return result;
}

export const healthRoutes = createRouter().openapi(health, async (c) => {
  const { lifecycle } = c.var.deps;
  // Draining before a stop: still serving, but a balancer's health check must take this process out now.
  if (lifecycle?.draining) throw new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '服务正在停止，请求将由其他实例处理', { status: 'stopping' });
  const data = await checkDependencies(c.var.deps);
  if (data.status !== 'ok') throw new AppError(ErrorCode.DEPENDENCY_UNAVAILABLE, '部分依赖不可用', data);
  return ok(c, data, '服务正常');
});

import { z } from '@hono/zod-openapi';
import { MAX_RANGE_DAYS, rangeFigures, revenueSeries, shanghaiToday, STUCK_MINUTES, stateFigures } from '../../../domain/dashboard/figures.js';
import { marginOfDays } from '../../../domain/economics/margins.js';
import { validationError } from '../../../lib/errors.js';
import { SUPPLIER_BREAKER_STATES } from '../../../db/models/supplier.js';
import { marginFiguresSchema } from '../../resources/margins.js';
import { ok } from '../../envelope.js';
import { createRouter, defineRoute } from '../../openapi/define-route.js';
import { dateQuery, moneyString } from '../../schemas.js';

const tags = ['管理端：仪表盘'];
const access = { surface: 'admin', permission: 'dashboard.view' } as const;

const rangeSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    revenue: moneyString.openapi({ description: '已支付的购买、续费与流量包账单金额（按支付时间，含之后退款的）' }),
    recharge: moneyString.openapi({ description: '已支付的充值账单金额' }),
    refunds: moneyString.openapi({ description: '退款成功金额（按退款时间）' }),
    net_revenue: moneyString.openapi({ description: 'revenue − refunds' }),
    paid_invoices: z.number().int(),
    new_users: z.number().int(),
    new_services: z.number().int(),
    margin: marginFiguresSchema.openapi({
      description: '毛利（docs/economics.md）：服务账单的收入 − 退款 − 上游成本（按支付、退款与成本记录时间）；不含实名认证等非服务账单；成本未知时 upstream_cost、margin 为 null',
    }),
  })
  .openapi('DashboardRange');

const stateSchema = z
  .object({
    active_services: z.number().int(),
    provisioning_stuck: z.number().int().openapi({ description: `开通未完成且超过 ${STUCK_MINUTES} 分钟没有进展的服务（不含等待管理员处理的）` }),
    provisioning_awaiting_admin: z.number().int().openapi({ description: '开通失败、等待管理员决定（重试或取消）的服务' }),
    renewals_due: z.number().int().openapi({ description: '在 renewals_due_days 天内到期的活跃服务' }),
    renewals_due_days: z.number().int(),
    schedules: z.object({
      runs_24h: z.number().int(),
      failed_24h: z.number().int(),
      overdue_running: z.number().int().openapi({ description: '超过锁定时长仍在运行的任务' }),
      failing_tasks: z.number().int().openapi({ description: '最近一次运行失败的任务数（近 7 天）' }),
    }),
    extras: z.record(z.string(), z.number().int().nullable()).openapi({
      description: '其他模块登记的数字（如待处理工单、待审核提现）；模块未安装时为 null。',
    }),
    supplier_health: z
      .array(
        z.object({
          supplier_id: z.number().int(),
          code: z.string(),
          name: z.string(),
          state: z.enum(SUPPLIER_BREAKER_STATES).openapi({ description: '熔断器状态：closed 正常、open 不可用（熔断中）、half_open 正在试探' }),
          calls: z.number().int().openapi({ description: '统计窗口内的调用数' }),
          failure_percent: z.number().nullable().openapi({ description: '统计窗口内失败调用占比（%），无调用时为 null' }),
          latency_p95_ms: z.number().int().nullable().openapi({ description: '统计窗口内调用延迟的 95 分位（毫秒）' }),
        }),
      )
      .openapi({ description: '各供应商健康状况（docs/fulfilment.md「Supplier health」）' }),
  })
  .openapi('DashboardState');

const figures = defineRoute({
  method: 'get',
  path: '/api/v2/admin/dashboard',
  tags,
  summary: '仪表盘数字（今天、本月、自选日期范围与当前状态）',
  description: `日期按 Asia/Shanghai 计算；date_from 与 date_to 同时给出时返回 range（最多 ${MAX_RANGE_DAYS} 天），否则 range 为 null。`,
  access,
  request: { query: z.object({ date_from: dateQuery.optional(), date_to: dateQuery.optional() }) },
  data: z.object({ today: rangeSchema, month: rangeSchema, range: rangeSchema.nullable(), state: stateSchema }),
});

const series = defineRoute({
  method: 'get',
  path: '/api/v2/admin/dashboard/revenue-series',
  tags,
  summary: '营收曲线（按天）',
  description: `每天一个点（没有金额的日子为 0）；默认最近 30 天，最多 ${MAX_RANGE_DAYS} 天。`,
  access,
  request: { query: z.object({ date_from: dateQuery.optional(), date_to: dateQuery.optional() }) },
  data: z.object({
    points: z.array(z.object({ date: z.string(), revenue: moneyString, recharge: moneyString, refunds: moneyString }).openapi('RevenuePoint')),
  }),
});

function bothOrNeither(query: { date_from?: string | undefined; date_to?: string | undefined }) {
  if ((query.date_from === undefined) !== (query.date_to === undefined)) {
    throw validationError({ [query.date_from === undefined ? 'date_from' : 'date_to']: ['开始日期与结束日期需同时给出'] }, '开始日期与结束日期需同时给出');
  }
}

export const adminDashboardRoutes = createRouter()
  .openapi(figures, async (c) => {
    const query = c.req.valid('query');
    bothOrNeither(query);
    const deps = c.var.deps;
    const { today, monthStart } = shanghaiToday();
    const withMargin = async (from: string, to: string) => {
      const [figures, margin] = await Promise.all([rangeFigures(deps, from, to), marginOfDays(deps, from, to)]);
      return { ...figures, margin };
    };
    const [todayFigures, month, range, state] = await Promise.all([
      withMargin(today, today),
      withMargin(monthStart, today),
      query.date_from && query.date_to ? withMargin(query.date_from, query.date_to) : Promise.resolve(null),
      stateFigures(deps),
    ]);
    return ok(c, { today: todayFigures, month, range, state });
  })
  .openapi(series, async (c) => {
    const query = c.req.valid('query');
    bothOrNeither(query);
    const { today } = shanghaiToday();
    const from = query.date_from ?? shanghaiToday(new Date(Date.now() - 29 * 86_400_000)).today;
    return ok(c, { points: await revenueSeries(c.var.deps, from, query.date_to ?? today) });
  });

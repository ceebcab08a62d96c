import type { BuiltinTask } from '../types.js';
import { checkPriceDrift } from '../../economics/price-drift.js';
import { refreshSupplierBalances } from '../../economics/funds.js';
import { forecastRunway } from '../../economics/runway.js';
import { compactMarginTotals } from '../../economics/margins.js';

/**
 * Reseller economics (issue #29, docs/economics.md). The drift check reads every bound product's
 * upstream prices and records a finding per changed price point whose margin fell below the
 * floor; it runs hourly and on demand (the admin trigger, `POST /api/v2/admin/schedules/{key}/trigger`).
 */
export const priceDriftTask: BuiltinTask = {
  key: 'upstream.price-drift',
  title: '检查上游价格漂移',
  description:
    '读取每个已绑定供应商商品的上游当前价格（各计费周期与配置选项），与本站售价比较：毛利率低于下限（经营设置 margin_floor_percent）的价格点各记一条价格漂移（每次变化一条，重复运行不重复记录）；上游成本高于售价的商品在开启 hold_below_cost 时暂停报价与新购；按服务续费价计算亏损的续费只标记不拒绝。运行摘要给出商品数、价格点数、新增与解决的记录数，以及读取失败的商品。',
  category: 'economics',
  triggers: [{ type: 'cadence', cadence: 'hourly' }],
  queue: 'automation',
  timeout: 600,
  lockTtlSeconds: 900,
  manualTriggerable: true,
  handler: (deps) => checkPriceDrift(deps),
};

/** Upstream funds: the supplier balances, read every heartbeat. */
export const supplierBalancesTask: BuiltinTask = {
  key: 'upstream.balances',
  title: '读取上游供应商余额',
  description: '每次心跳（15 分钟）读取每个启用供应商的上游账户余额，供仪表盘、监控指标与经营页面使用；单个供应商失败不影响其他供应商。',
  category: 'upstream',
  triggers: [{ type: 'heartbeats', every: 1 }],
  queue: 'automation',
  timeout: 300,
  lockTtlSeconds: 840,
  manualTriggerable: true,
  handler: (deps) => refreshSupplierBalances(deps),
};

/** Upstream funds: the daily runway forecast against each supplier's balance. */
export const supplierRunwayTask: BuiltinTask = {
  key: 'upstream.runway',
  title: '预测上游余额是否足够续费',
  description: '每天按供应商汇总经营设置「上游余额预测天数」内到期续费的上游成本，与上游余额比较；不足时提醒管理员（每个供应商每天一次）。',
  category: 'upstream',
  triggers: [{ type: 'cadence', cadence: 'daily' }],
  queue: 'automation',
  timeout: 600,
  lockTtlSeconds: 900,
  manualTriggerable: true,
  handler: (deps) => forecastRunway(deps),
};

/** Margins: the delta rows of the margin totals folded into one row per key, every heartbeat. */
export const compactMarginTotalsTask: BuiltinTask = {
  key: 'economics.compact_margin_totals',
  title: '合并毛利汇总增量',
  description:
    '每次心跳（15 分钟）把毛利汇总表（service_margin_totals、margin_day_totals）中每次收付款、退款、成本写入追加的增量行合并为每个分组一行；合并前后读到的毛利数字相同，只让汇总读取更快。',
  category: 'economics',
  triggers: [{ type: 'heartbeats', every: 1 }],
  queue: 'automation',
  timeout: 300,
  lockTtlSeconds: 840,
  manualTriggerable: true,
  handler: (deps) => compactMarginTotals(deps),
};

import type { BuiltinTask } from '../types.js';
import { refreshSupplierBalances } from '../../economics/funds.js';
import { forecastRunway } from '../../economics/runway.js';

/** Upstream funds (docs/economics-funds.md): the supplier balances and the runway forecast. */
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

import { foldDashboardFigures } from '../../dashboard/kept.js';
import type { BuiltinTask } from '../types.js';

/** The dashboard's kept figures (migrations 0044, 0051): their delta rows folded, so a read sums a few rows. */
export const foldDashboardFiguresTask: BuiltinTask = {
  key: 'dashboard.fold_figures',
  title: '仪表盘数字归并',
  description:
    '每小时把仪表盘数字的增量行（service_status_deltas：各状态的服务数；daily_money_deltas：每天的已付账单金额与退款；ticket_status_deltas：各状态的工单数）按状态、按天归并成一行，使读取只需加总少量行。增量行由写入它们的事务插入，归并不改变任何数字，漏跑只会让读取多读几行。',
  category: 'maintenance',
  triggers: [{ type: 'cadence', cadence: 'hourly' }],
  queue: 'automation',
  timeout: 120,
  lockTtlSeconds: 300,
  manualTriggerable: true,
  handler: (deps) => foldDashboardFigures(deps),
};

import type { BuiltinTask } from '../types.js';
import { checkPriceDrift } from '../../economics/price-drift.js';

/**
 * Reseller economics (issue #29). The drift check reads every bound product's upstream prices
 * and records a finding per changed price point whose margin fell below the floor; it runs
 * hourly and on demand (the admin trigger, `POST /api/v2/admin/schedules/{key}/trigger`).
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

import { z } from 'zod';
import { settingGroup } from '../define.js';

/**
 * Reseller economics (issue #29), read by `domain/economics/`: the margin floor and the hold of
 * price drift (docs/economics.md "Upstream price drift"), and the days of the runway forecast
 * of upstream funds ("Upstream funds").
 */
export const economicsSettings = settingGroup('economics', '经营', {
  margin_floor_percent: {
    label: '毛利率下限（%）',
    description: '毛利率 =（售价 − 上游成本）÷ 售价 × 100。任一计费周期或配置选项的毛利率低于此值的已绑定商品列入价格漂移列表。',
    schema: z.number().min(0, '不能小于 0').max(100, '不能大于 100'),
    default: 10,
  },
  hold_below_cost: {
    label: '低于成本暂停销售',
    description: '开启后，上游成本高于售价的商品暂停报价与新购下单，直至管理员调整价格；已有未支付账单仍可支付，续费从不拒绝（只标记）。',
    schema: z.boolean(),
    default: false,
  },
  runway_days: {
    label: '上游余额预测天数',
    description: '每日预测各供应商未来此天数内到期续费的上游成本，与上游余额比较；余额不足时提醒管理员（每个供应商每天一次）。',
    schema: z.number().int('须为整数').min(1, '至少 1 天').max(365, '最多 365 天'),
    default: 30,
  },
});

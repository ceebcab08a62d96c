import { z } from 'zod';
import { settingGroup } from '../define.js';

/**
 * Reseller economics (issue #29), read by `domain/economics/`: the margin floor and the hold of
 * price drift (docs/economics.md "Upstream price drift"), and the days of the runway forecast
 * of upstream funds ("Upstream funds"), and the circuit breaker of supplier health
 * (docs/fulfilment.md "Supplier health", `domain/suppliers/health.ts`), and how long a
 * provisioning waits for funds before it fails over to another binding ("Failover").
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
  health_window_minutes: {
    label: '供应商健康统计窗口（分钟）',
    description: '按最近此分钟数内平台对每个供应商的调用计算失败比例与延迟（熔断器自上次恢复起算）。',
    schema: z.number().int('须为整数').min(1, '至少 1 分钟').max(60, '最多 60 分钟'),
    default: 5,
  },
  health_failure_percent: {
    label: '供应商熔断失败比例（%）',
    description: '窗口内失败调用（超时、连接失败、上游 5xx 或维护等）占比达到此值、且调用数不少于最少调用数时，判定供应商不可用并打开熔断器；库存不足、余额不足等业务拒绝不算失败。',
    schema: z.number().min(1, '不能小于 1').max(100, '不能大于 100'),
    default: 50,
  },
  health_min_calls: {
    label: '供应商熔断最少调用数',
    description: '窗口内调用数少于此值时不判定不可用。',
    schema: z.number().int('须为整数').min(1, '至少 1 次').max(1000, '最多 1000 次'),
    default: 10,
  },
  health_open_seconds: {
    label: '供应商熔断持续时间（秒）',
    description: '熔断器打开后经过此秒数，放行一次试探调用：成功则恢复，失败则重新计时；试探调用在此时间内未回报时可由他处重新领取。',
    schema: z.number().int('须为整数').min(10, '至少 10 秒').max(3600, '最多 3600 秒'),
    default: 60,
  },
  funds_failover_minutes: {
    label: '余额不足切换供应商等待（分钟）',
    description: '商品绑定多个上游时，开通因供应商余额不足等待超过此分钟数，改由下一个可开通的绑定开通（未向该供应商付款时）；0 表示一直等待充值。',
    schema: z.number().int('须为整数').min(0, '不能小于 0').max(1440, '最多 1440 分钟'),
    default: 30,
  },
});

import { z } from 'zod';
import { settingGroup } from '../define.js';

/**
 * Reseller economics (issue #29). Upstream funds (docs/economics-funds.md) read `runway_days`:
 * the daily runway forecast sums the upstream cost of renewals due within this many days.
 */
export const economicsSettings = settingGroup('economics', '经营', {
  runway_days: {
    label: '上游余额预测天数',
    description: '每日预测各供应商未来此天数内到期续费的上游成本，与上游余额比较；余额不足时提醒管理员（每个供应商每天一次）。',
    schema: z.number().int('须为整数').min(1, '至少 1 天').max(365, '最多 365 天'),
    default: 30,
  },
});

import { z } from 'zod';
import { settingGroup } from '../define.js';

const amount = z.string().trim().regex(/^\d{1,10}(\.\d{1,2})?$/, '金额为非负数，最多两位小数');

/** Referral commissions and their withdrawals (marketing; read by `readReferralConfig`). */
export const referralSettings = settingGroup('referral', '推广返佣', {
  holding_days: { label: '佣金冻结天数', description: '佣金入账后冻结这么多天才可提现；退款扣回不受影响。', schema: z.number().int().min(0).max(365), default: 7 },
  default_commission_rate: {
    label: '默认返佣比例（%）',
    description: '商品未单独设置、邀请人的会员等级也未设置时使用。',
    schema: z.string().trim().regex(/^(100(\.0{1,2})?|\d{1,2}(\.\d{1,2})?)$/, '比例为 0 到 100，最多两位小数'),
    default: '5.00',
  },
  withdrawal_min: { label: '单次最低提现金额', schema: amount, default: '10.00' },
  withdrawal_max: { label: '单次最高提现金额', schema: amount, default: '5000.00' },
  withdrawal_daily_limit: { label: '每日提现限额', description: '同一用户当日（北京时间）未驳回提现的合计上限。', schema: amount, default: '10000.00' },
});

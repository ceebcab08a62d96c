import { z } from 'zod';
import { ACCESS_ACTIONS, type AppConfig } from '../../../lib/config.js';
import { settingGroup } from '../define.js';

const actions = z.array(z.enum(ACCESS_ACTIONS)).max(ACCESS_ACTIONS.length);

/** Which actions need a verified e-mail or a real-name verification (the 40301 guard, docs/identity.md). */
export const accessSettings = settingGroup('access', '操作前置条件', {
  email_required_for: {
    label: '需要已验证邮箱的操作',
    description: '可选 purchase（购买）、recharge（充值）、withdrawal（提现）、ticket（工单）。',
    schema: actions,
    default: (config: AppConfig) => [...config.access.emailRequiredFor],
  },
  real_name_required_for: {
    label: '需要实名认证的操作',
    description: '可选 purchase（购买）、recharge（充值）、withdrawal（提现）、ticket（工单）。',
    schema: actions,
    default: (config: AppConfig) => [...config.access.realNameRequiredFor],
  },
});

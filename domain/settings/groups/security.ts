import { z } from 'zod';
import { settingGroup } from '../define.js';

/** Two-factor sign-in for staff (docs/security.md "Two-factor sign-in and step-up"). */
export const securitySettings = settingGroup('security', '登录安全', {
  two_factor_required_for_all_admins: {
    label: '所有管理员必须开启两步验证',
    description: '开启后，未绑定两步验证的管理员登录时只得到仅能绑定两步验证的受限令牌。',
    schema: z.boolean(),
    default: false,
  },
  two_factor_required_roles: {
    label: '必须开启两步验证的角色',
    description: '角色代码列表（如 finance）；这些角色的管理员登录时必须先绑定两步验证。',
    schema: z.array(z.string().regex(/^[a-z][a-z0-9_]{1,63}$/, { error: '角色代码只能包含小写字母、数字和下划线，以字母开头' })).max(100),
    default: [] as string[],
  },
  step_up_max_age_minutes: {
    label: '敏感操作的两步验证有效期（分钟）',
    description: '已开启两步验证的管理员执行调整余额、退款、审核提现、修改供应商与插件密钥、管理管理员与角色等操作时，距上次输入验证码超过此时长须重新验证（40302）。',
    schema: z.number().int().min(1).max(1440),
    default: 15,
  },
});

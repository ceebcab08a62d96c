import { z } from 'zod';
import { settingGroup } from '../define.js';

/** Who may open an account. */
export const registrationSettings = settingGroup('registration', '注册', {
  enabled: { label: '开放注册', description: '关闭后新用户须持邀请码注册，已有用户照常登录。', schema: z.boolean(), default: true },
  invite_code: {
    label: '邀请码',
    description: '关闭开放注册时，注册请求带上此邀请码（invite_code）仍可注册；留空则完全关闭注册。12 至 64 个字符。',
    secret: true,
    schema: z.string().min(12, '邀请码至少 12 个字符').max(64, '邀请码最多 64 个字符'),
  },
});

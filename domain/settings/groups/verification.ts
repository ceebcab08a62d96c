import { z } from 'zod';
import type { AppConfig } from '../../../lib/config.js';
import { settingGroup } from '../define.js';

/** Real-name verification fees and lifetime (docs/identity.md); defaults from the VERIFICATION_* variables. */
export const verificationSettings = settingGroup('verification', '实名认证', {
  free_attempts: {
    label: '免费认证次数',
    description: '每个账号可免费发起的实名认证次数（0 到 100）；重新发起不计次数。',
    schema: z.number().int().min(0).max(100),
    default: (config: AppConfig) => config.verification.freeAttempts,
  },
  fee: {
    label: '每次认证费用（元）',
    description: '免费次数用完后每次认证的费用，两位小数；0.00 表示始终免费。',
    schema: z.string().regex(/^\d{1,6}\.\d{2}$/, '金额格式应为最多两位小数的元，如 5.00'),
    default: (config: AppConfig) => config.verification.fee,
  },
  attempt_seconds: {
    label: '单次认证有效期（秒）',
    description: '发起后在此时间内未完成的认证过期（3 到 86400）。',
    schema: z.number().int().min(3).max(86_400),
    default: (config: AppConfig) => config.verification.attemptSeconds,
  },
});

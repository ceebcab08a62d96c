import { z } from 'zod';
import type { AppConfig } from '../../../lib/config.js';
import { settingGroup } from '../define.js';

/** What the public site shows about the business (answered by `GET /api/v2/site/config`). */
export const siteSettings = settingGroup('site', '站点信息', {
  name: {
    label: '站点名称',
    description: '未设置时使用环境变量 SITE_NAME。',
    schema: z.string().trim().min(1).max(64),
    default: (config: AppConfig) => config.siteName,
  },
  support_email: { label: '客服邮箱', schema: z.union([z.literal(''), z.email().max(200)]), default: '' },
  support_phone: { label: '客服电话', schema: z.string().trim().max(32).regex(/^[0-9+\-() ]*$/, '只能包含数字、空格和 + - ( )'), default: '' },
  icp_record: { label: 'ICP 备案号', schema: z.string().trim().max(64), default: '' },
  footer_text: { label: '页脚文字', schema: z.string().trim().max(500), default: '' },
});

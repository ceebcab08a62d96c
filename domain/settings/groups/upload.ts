import { z } from 'zod';
import { settingGroup } from '../define.js';

/** Upload size limits, in MB (read through `uploadPolicy`, domain/support/policy.ts); never above the request ceiling of 20 MB. */
export const uploadSettings = settingGroup('upload', '上传', {
  image_max_mb: {
    label: '内容图片大小上限（MB）',
    description: '管理端上传内容图片（首页横幅等）的单个文件上限。',
    schema: z.number().int('须为整数').min(1, '至少 1 MB').max(20, '最多 20 MB'),
    default: 5,
  },
  attachment_max_mb: {
    label: '工单附件大小上限（MB）',
    description: '客户上传工单附件的单个文件上限。',
    schema: z.number().int('须为整数').min(1, '至少 1 MB').max(20, '最多 20 MB'),
    default: 10,
  },
});

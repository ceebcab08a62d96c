import { z } from 'zod';
import { settingGroup } from '../define.js';

/** Ticket rules (read through `ticketPolicy`, domain/support/policy.ts). */
export const ticketSettings = settingGroup('ticket', '工单', {
  auto_close_days: {
    label: '自动关闭天数',
    description: '工单处于「已回复」（等待客户）满此天数后自动关闭；0 表示不自动关闭。',
    schema: z.number().int('须为整数').min(0, '不能小于 0').max(365, '最多 365 天'),
    default: 7,
  },
  reminder_hours: {
    label: '关闭前提醒（小时）',
    description: '自动关闭前此小时数向客户发送一次提醒（邮件与短信各一次）；关闭至少在提醒后此时长才发生。',
    schema: z.number().int('须为整数').min(1, '至少 1 小时').max(720, '最多 720 小时'),
    default: 24,
  },
  reply_limit: {
    label: '回复频率上限（条）',
    description: '每个用户在一个时间窗口内最多可提交的工单与回复数。',
    schema: z.number().int('须为整数').min(1, '至少 1 条').max(1000, '最多 1000 条'),
    default: 10,
  },
  reply_window_minutes: {
    label: '回复频率窗口（分钟）',
    schema: z.number().int('须为整数').min(1, '至少 1 分钟').max(1440, '最多 1440 分钟'),
    default: 10,
  },
});

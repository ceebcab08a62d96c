import { autoCloseTickets } from '../../support/auto-close.js';
import type { BuiltinTask } from '../types.js';

export const ticketAutoCloseTask: BuiltinTask = {
  key: 'tickets.auto_close',
  title: '工单自动关闭',
  description: '每小时检查等待客户回复（已回复状态）的工单：自动关闭前先发送一次提醒（邮件与短信），等待满设定天数且提醒后已过提醒时长的工单自动关闭并通知客户；每个提醒与通知只发送一次。',
  category: 'support',
  triggers: [{ type: 'cadence', cadence: 'hourly' }],
  queue: 'automation',
  timeout: 600,
  lockTtlSeconds: 900,
  manualTriggerable: true,
  handler: (deps, run) => autoCloseTickets(deps, run),
};

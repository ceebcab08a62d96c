import type { BuiltinTask } from '../types.js';
import { sendAccountNotices } from '../../notifications/send-account-notices.js';
import { sendDueReminders } from '../../notifications/send-due-reminders.js';

/** Reminders by mail and SMS; every notice goes out at most once per channel (notification log). */
export const dueRemindersTask: BuiltinTask = {
  key: 'notifications.due_reminders',
  title: '到期与逾期提醒',
  description: '每天 10:00（北京时间）向即将到期（RENEWAL_REMINDER_DAYS，默认提前 7、3、1 天）与已到期未续费的服务的用户发送邮件和短信提醒，每个提醒每个渠道只发送一次。',
  category: 'notifications',
  triggers: [{ type: 'cron', expression: '0 10 * * *' }],
  queue: 'automation',
  timeout: 600,
  lockTtlSeconds: 900,
  manualTriggerable: true,
  handler: (deps, run) => sendDueReminders(deps, run),
};

export const accountNoticesTask: BuiltinTask = {
  key: 'notifications.account_notices',
  title: '账单未支付与服务状态通知',
  description: '每小时发送新购与流量包账单的未支付提醒（创建 INVOICE_UNPAID_REMINDER_HOURS 小时后，一次），补发服务暂停与终止通知，并将中断的发送标记为结果未知（不重发）。',
  category: 'notifications',
  triggers: [{ type: 'cadence', cadence: 'hourly' }],
  queue: 'automation',
  timeout: 600,
  lockTtlSeconds: 900,
  manualTriggerable: true,
  handler: (deps, run) => sendAccountNotices(deps, run),
};

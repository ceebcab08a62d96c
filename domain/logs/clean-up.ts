import { validationError } from '../../lib/errors.js';
import type { AppConfig } from '../../lib/config.js';
import type { DomainDeps } from '../deps.js';
import { trimTable } from './retention.js';

/**
 * `POST logs/clean-up`: the log types an admin may trim by age, each with the youngest age a
 * clean-up may take. The admin audit is not among them (append-only). SMS and mail rows are the
 * notification jobs' "sent once" record: they live at least as long as the retention allows
 * (NOTIFICATION_LOG_RETENTION_DAYS's own floor), or a reminder could go out again; login rows
 * feed the login throttle's window.
 */
export const LOG_TYPES = ['api', 'sms', 'mail', 'task', 'system', 'login', 'plugin'] as const;
export type LogType = (typeof LOG_TYPES)[number];

export const LOG_TYPE_LABELS: Record<LogType, string> = {
  api: '接口请求日志',
  sms: '短信日志',
  mail: '邮件日志',
  task: '任务日志',
  system: '系统日志',
  login: '登录日志',
  plugin: '插件运行日志',
};

type Target = { table: string; column: string; keep?: string; minDays: (config: AppConfig) => number };

const notificationFloor = (c: AppConfig) => Math.max(30, c.lifecycle.staleInvoiceDays + 1);

const TARGETS: Record<LogType, Target> = {
  api: { table: 'api_request_logs', column: 'created_at', minDays: () => 0 },
  sms: { table: 'notification_log', column: 'created_at', keep: "channel <> 'sms' OR status = 'sending'", minDays: notificationFloor },
  mail: { table: 'notification_log', column: 'created_at', keep: "channel <> 'mail' OR status = 'sending'", minDays: notificationFloor },
  task: { table: 'task_runs', column: 'started_at', keep: "status = 'running'", minDays: () => 0 },
  system: { table: 'system_logs', column: 'created_at', minDays: () => 0 },
  login: { table: 'login_logs', column: 'created_at', minDays: (c) => Math.max(1, Math.ceil(c.loginThrottle.windowSeconds / 86_400)) },
  plugin: { table: 'plugin_runtime_logs', column: 'created_at', minDays: () => 0 },
};

export function minimumCleanUpDays(config: AppConfig, type: LogType): number {
  return TARGETS[type].minDays(config);
}

/** Deletes rows of one log type older than `olderThanDays` days, in batches; answers how many. */
export async function cleanUpLogType(deps: DomainDeps, type: LogType, olderThanDays: number, now = new Date()): Promise<{ deleted: number; cutoff: Date }> {
  const target = TARGETS[type];
  const min = target.minDays(deps.config);
  if (olderThanDays < min) {
    throw validationError({ older_than_days: [`${LOG_TYPE_LABELS[type]}至少保留 ${min} 天`] }, `${LOG_TYPE_LABELS[type]}至少保留 ${min} 天`);
  }
  const cutoff = new Date(now.getTime() - olderThanDays * 86_400_000);
  return { deleted: await trimTable(deps, target, cutoff), cutoff };
}

import { verifyAuditChainDaily } from '../../logs/audit-chain.js';
import { cleanUpLogs } from '../../logs/retention.js';
import type { BuiltinTask } from '../types.js';

/** The logs' upkeep: trimming by retention, and the daily check of the admin audit's hash chain. */
export const logRetentionTask: BuiltinTask = {
  key: 'logs.retention_cleanup',
  title: '日志保留期清理',
  description: '每天删除超过保留天数的任务运行记录、插件运行日志、登录日志、通知记录（短信与邮件）、接口请求日志和系统日志（天数由环境变量配置）、已过期的幂等键，以及完成超过 7 天的 outbox 记录（未完成的从不删除）。',
  category: 'maintenance',
  triggers: [{ type: 'cadence', cadence: 'daily' }],
  queue: 'automation',
  timeout: 600,
  lockTtlSeconds: 900,
  manualTriggerable: true,
  handler: (deps) => cleanUpLogs(deps),
};

export const auditChainTask: BuiltinTask = {
  key: 'audit.verify-chain',
  title: '管理员审计链校验',
  description:
    '每天重新计算管理员操作审计每一行的哈希并核对链接，报告第一处断裂（被修改或删除的记录）；结果与链头哈希写入系统日志（audit 类）和监控指标，链断裂时本次运行失败。',
  category: 'maintenance',
  triggers: [{ type: 'cadence', cadence: 'daily' }],
  queue: 'automation',
  timeout: 600,
  lockTtlSeconds: 900,
  manualTriggerable: true,
  handler: (deps) => verifyAuditChainDaily(deps),
};

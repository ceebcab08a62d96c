import { verifyAuditChainDaily } from '../../logs/audit-chain.js';
import { ensureLogPartitions, PARTITION_MONTHS_AHEAD } from '../../logs/partitions.js';
import { cleanUpLogs } from '../../logs/retention.js';
import type { BuiltinTask } from '../types.js';

/** The logs' upkeep: trimming by retention, and the daily check of the admin audit's hash chain. */
export const logRetentionTask: BuiltinTask = {
  key: 'logs.retention_cleanup',
  title: '日志保留期清理',
  description: '每天删除超过保留天数的任务运行记录、插件运行日志、登录日志、通知记录（短信与邮件）、接口请求日志和系统日志（天数由环境变量配置）、已过期的幂等键，以及完成超过 7 天的 outbox 记录（未完成的从不删除）。按月分区的接口请求日志与插件运行日志整月分离并删除分区（整月都超过保留天数时），不逐行删除。',
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
    '每天从上次校验的检查点（最后校验的记录序号与哈希，存于 admin_audit_chain_checkpoints）起重新计算之后每一行的哈希并核对链接，报告第一处断裂（被修改或删除的记录）；完整时记下新的检查点。结果与链头哈希写入系统日志（audit 类）和监控指标，链断裂时本次运行失败。检查点之前的记录由全量校验（GET /api/v2/admin/audit-logs/verify）核对。',
  category: 'maintenance',
  triggers: [{ type: 'cadence', cadence: 'daily' }],
  queue: 'automation',
  timeout: 600,
  lockTtlSeconds: 900,
  manualTriggerable: true,
  handler: (deps) => verifyAuditChainDaily(deps),
};

export const logPartitionTask: BuiltinTask = {
  key: 'logs.partition_maintenance',
  title: '日志分区维护',
  description: `每天为按月分区的日志表（接口请求日志、插件运行日志）提前建好本月及之后 ${PARTITION_MONTHS_AHEAD} 个月的分区（已有的跳过；建分区时写入照常进行）。没有分区的月份写不进日志，所以要提前建。`,
  category: 'maintenance',
  triggers: [{ type: 'cadence', cadence: 'daily' }],
  queue: 'automation',
  timeout: 120,
  lockTtlSeconds: 300,
  manualTriggerable: true,
  handler: (deps) => ensureLogPartitions(deps),
};

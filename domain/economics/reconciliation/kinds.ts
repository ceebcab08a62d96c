import type { ReconciliationFindingKind, ReconciliationFindingState, ReconciliationRunStatus } from '../../../db/models/reconciliation.js';

/** Chinese labels of the finding kinds, as the admin list shows them. */
export const FINDING_KIND_LABELS: Record<ReconciliationFindingKind, string> = {
  unknown_upstream_host: '上游有主机而本地无对应服务（可能漏收费）',
  missing_upstream: '本地服务有效但上游主机已不存在或已终止',
  upstream_suspended: '本地服务有效但上游主机已暂停',
  upstream_expired: '本地服务有效但上游主机已过期',
  due_date_mismatch: '本地与上游到期时间不一致',
  unmatched_upstream_charge: '上游已付账单无对应本地订单',
  paid_after_failover: '已切换供应商，原供应商的未付账单却已支付（可能有无人负责的主机）',
  live_after_failover: '已切换供应商，原供应商的主机却在运行（无人负责）',
};

/**
 * Kinds told loudly (a critical admin alert, an error line in the log): money or a host at a
 * supplier a provisioning moved away from, which nothing of ours accounts for.
 */
export const LOUD_KINDS: ReadonlySet<ReconciliationFindingKind> = new Set(['paid_after_failover', 'live_after_failover']);

export const FINDING_STATE_LABELS: Record<ReconciliationFindingState, string> = {
  open: '待处理',
  acknowledged: '已确认',
  resolved: '已解决',
};

export const RUN_STATUS_LABELS: Record<ReconciliationRunStatus, string> = {
  running: '进行中',
  succeeded: '已完成',
  failed: '失败',
};

/** The kinds a host list decides (auto-resolved only when the list was read whole). */
export const HOST_KINDS: readonly ReconciliationFindingKind[] = ['unknown_upstream_host', 'missing_upstream', 'upstream_suspended', 'upstream_expired', 'due_date_mismatch', 'live_after_failover'];

/** The kind a bill list decides (auto-resolved only when the bill list was read whole). */
export const BILL_KINDS: readonly ReconciliationFindingKind[] = ['unmatched_upstream_charge', 'paid_after_failover'];

import { walArchiveTask } from './builtin/backups.js';
import { closeExpiredPaymentsTask, redispatchFulfilmentTask } from './builtin/billing.js';
import { foldDashboardFiguresTask } from './builtin/dashboard.js';
import { compactMarginTotalsTask, supplierBalancesTask, supplierRunwayTask } from './builtin/economics.js';
import {
  autoRenewTask,
  cancelStaleInvoicesTask,
  renewalInvoicesTask,
  suspendOverdueTask,
  syncHostsTask,
  terminateOverdueTask,
  unsuspendRenewedTask,
} from './builtin/lifecycle.js';
import { priceDriftTask } from './builtin/economics.js';
import { auditChainTask, logPartitionTask, logRetentionTask } from './builtin/logs.js';
import { memberLevelsTask, releaseCommissionsTask } from './builtin/marketing.js';
import { accountNoticesTask, dueRemindersTask } from './builtin/notifications.js';
import { reconcileSuppliersTask } from './builtin/reconciliation.js';
import { ticketAutoCloseTask } from './builtin/support.js';
import type { BuiltinTask } from './types.js';

/**
 * The built-in tasks (docs/CONVENTIONS.md "A built-in job"), declared in `builtin/<area>.ts`
 * beside each other, their handlers in their areas. Keys are unique across built-in
 * and plugin tasks and never change once released: task runs and workflow ids carry them.
 */
export const BUILTIN_TASKS: readonly BuiltinTask[] = [
  logRetentionTask,
  logPartitionTask,
  redispatchFulfilmentTask,
  closeExpiredPaymentsTask,
  renewalInvoicesTask,
  autoRenewTask,
  suspendOverdueTask,
  terminateOverdueTask,
  unsuspendRenewedTask,
  syncHostsTask,
  dueRemindersTask,
  accountNoticesTask,
  cancelStaleInvoicesTask,
  ticketAutoCloseTask,
  releaseCommissionsTask,
  memberLevelsTask,
  auditChainTask,
  priceDriftTask,
  reconcileSuppliersTask,
  supplierBalancesTask,
  supplierRunwayTask,
  compactMarginTotalsTask,
  walArchiveTask,
  foldDashboardFiguresTask,
];

/** Keys of the three schedules; no task may use them (the admin trigger route takes both kinds). */
export const RESERVED_TASK_KEYS: readonly string[] = ['heartbeat', 'hourly', 'daily'];

export function findBuiltinTask(key: string): BuiltinTask | undefined {
  return BUILTIN_TASKS.find((t) => t.key === key);
}

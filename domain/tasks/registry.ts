import { closeExpiredPaymentsTask, redispatchFulfilmentTask } from '../billing/repair-tasks.js';
import {
  autoRenewTask,
  cancelStaleInvoicesTask,
  renewalInvoicesTask,
  suspendOverdueTask,
  syncHostsTask,
  terminateOverdueTask,
  unsuspendRenewedTask,
} from '../lifecycle/lifecycle-tasks.js';
import { accountNoticesTask, dueRemindersTask } from '../notifications/notification-tasks.js';
import { ticketAutoCloseTask } from '../support/auto-close.js';
import { logRetentionTask } from './builtin/log-retention.js';
import { auditChainTask } from '../logs/audit-chain.js';
import { releaseCommissionsTask } from '../marketing/commissions.js';
import { memberLevelsTask } from '../marketing/member-levels.js';
import type { BuiltinTask } from './types.js';

/**
 * The built-in tasks (docs/CONVENTIONS.md "A built-in job"). Keys are unique across built-in
 * and plugin tasks and never change once released: task runs and workflow ids carry them.
 */
export const BUILTIN_TASKS: readonly BuiltinTask[] = [
  logRetentionTask,
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
];

/** Keys of the three schedules; no task may use them (the admin trigger route takes both kinds). */
export const RESERVED_TASK_KEYS: readonly string[] = ['heartbeat', 'hourly', 'daily'];

export function findBuiltinTask(key: string): BuiltinTask | undefined {
  return BUILTIN_TASKS.find((t) => t.key === key);
}

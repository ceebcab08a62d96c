import type { BuiltinTask } from '../types.js';
import { repairFulfilmentOutbox } from '../../upstream-work/repair-fulfilment-outbox.js';
import { closeExpiredPayments } from '../../billing/payments/close-expired-payments.js';

/**
 * Money's backstops, run hourly by the scheduler (the normal paths are immediate: the outbox relay
 * starts each payment's fulfilment within seconds, and each QR payment's workflow closes it at
 * expiry). The fulfilment one only reports and repairs the outbox; its key predates that and, like
 * every released key, never changes.
 */
export const redispatchFulfilmentTask: BuiltinTask = {
  key: 'billing.redispatch_fulfilment',
  title: '检查并修复已支付账单的履约记录',
  description:
    '最后一道保障：找出已支付超过 1 分钟但仍未记录履约派发的账单，为缺少 outbox 记录的补写一条、把卡住的记录重新置为到期，交由 outbox 中继派发；本任务自身从不派发。运行摘要列出数量与账单 ID，并统计待处理与逾期的 outbox 记录。正常情况下中继在数秒内完成派发，本任务应找不到任何账单；找到即记录警告。',
  category: 'billing',
  triggers: [{ type: 'cadence', cadence: 'hourly' }],
  queue: 'platform',
  timeout: 300,
  lockTtlSeconds: 600,
  manualTriggerable: true,
  handler: (deps) => repairFulfilmentOutbox(deps),
};

export const closeExpiredPaymentsTask: BuiltinTask = {
  key: 'billing.close_expired_payments',
  title: '关闭过期的扫码支付',
  description: '关闭已过支付窗口 10 分钟仍为等待支付的扫码支付单（其支付工作流未能关闭时）：向网关关闭交易并退回余额抵扣部分；若网关显示已支付则入账。',
  category: 'billing',
  triggers: [{ type: 'cadence', cadence: 'hourly' }],
  queue: 'platform',
  timeout: 300,
  lockTtlSeconds: 600,
  manualTriggerable: true,
  handler: (deps, run) => closeExpiredPayments(deps, { traceId: `task:${run.taskKey}:${run.taskRunId}` }),
};

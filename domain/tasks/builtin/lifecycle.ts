import type { BuiltinTask } from '../types.js';
import { autoRenewServices } from '../../lifecycle/auto-renew-services.js';
import { cancelStaleInvoices } from '../../lifecycle/cancel-stale-invoices.js';
import { createDueRenewalInvoices } from '../../lifecycle/create-renewal-invoices.js';
import { suspendOverdueServices, terminateOverdueServices, unsuspendRenewedServices } from '../../lifecycle/enforce-due-dates.js';
import { syncUpstreamHosts } from '../../lifecycle/sync-upstream-hosts.js';

/**
 * The service lifecycle jobs (docs/scheduling.md "Lifecycle jobs"). Each is idempotent per entity: a rerun
 * finds nothing left to do; upstream state changes are confirmed before the local state moves.
 */
/** Seconds one attempt of the renewal-invoice task may take. */
const RENEWAL_TIMEOUT_SECONDS = 600;

/**
 * The renewal-invoice run's budget: it starts no invoice after this and answers `more_due`,
 * leaving a minute of its attempt's timeout for the invoice under way and the summary; the next
 * hourly run continues (docs/scheduling.md "Renewal invoices: a bounded run").
 */
export const RENEWAL_RUN_BUDGET_MS = (RENEWAL_TIMEOUT_SECONDS - 60) * 1000;

/** Seconds one attempt of the auto-renew task may take. */
const AUTO_RENEW_TIMEOUT_SECONDS = 300;

/** The auto-renew run's budget, the same way: its timeout less a minute (docs/scheduling.md "Auto-renew: a bounded run"). */
export const AUTO_RENEW_RUN_BUDGET_MS = (AUTO_RENEW_TIMEOUT_SECONDS - 60) * 1000;

export const renewalInvoicesTask: BuiltinTask = {
  key: 'services.renewal_invoices',
  title: '生成续费账单',
  description:
    '每小时为到期时间在 RENEWAL_INVOICE_LEAD_DAYS 天内（或已到期）、尚无未支付续费账单的服务，按其自身周期与价格生成续费账单；同一到期时间只生成一次（用户取消后也不再生成）。单次运行有时间上限，未处理完的（more_due）由下一次运行按到期时间顺序继续。',
  category: 'services',
  triggers: [{ type: 'cadence', cadence: 'hourly' }],
  queue: 'platform',
  timeout: RENEWAL_TIMEOUT_SECONDS,
  lockTtlSeconds: 900,
  manualTriggerable: true,
  handler: (deps, run) => createDueRenewalInvoices(deps, run, { budgetMs: RENEWAL_RUN_BUDGET_MS }),
};

export const autoRenewTask: BuiltinTask = {
  key: 'services.auto_renew',
  title: '自动续费（余额扣款）',
  description: '每小时为开启自动续费、即将到期（续费提前天数内）或已到期的服务，用账户余额支付其未支付的续费账单；余额不足则保留账单，由续费提醒告知用户。单次运行有时间上限，未处理完的（more_due）由下一次运行从停下处继续。不切换、不同步上游的自动续费。',
  category: 'services',
  triggers: [{ type: 'cadence', cadence: 'hourly' }],
  queue: 'platform',
  timeout: AUTO_RENEW_TIMEOUT_SECONDS,
  lockTtlSeconds: 600,
  manualTriggerable: true,
  handler: (deps, run) => autoRenewServices(deps, run, { budgetMs: AUTO_RENEW_RUN_BUDGET_MS }),
};

export const suspendOverdueTask: BuiltinTask = {
  key: 'services.suspend_overdue',
  title: '暂停逾期未续费的服务',
  description: '每小时通过上游暂停到期后超过宽限天数（SUSPEND_AFTER_DAYS）仍未续费的服务；上游确认后才变更本地状态并通知用户，失败的下次运行重试。',
  category: 'services',
  triggers: [{ type: 'cadence', cadence: 'hourly' }],
  queue: 'platform',
  timeout: 600,
  lockTtlSeconds: 900,
  manualTriggerable: true,
  handler: (deps, run) => suspendOverdueServices(deps, run),
};

export const terminateOverdueTask: BuiltinTask = {
  key: 'services.terminate_overdue',
  title: '终止暂停期满的服务',
  description: '每小时通过上游终止因逾期暂停超过 TERMINATE_AFTER_DAYS 天仍未续费的服务；上游确认后才变更本地状态并通知用户。',
  category: 'services',
  triggers: [{ type: 'cadence', cadence: 'hourly' }],
  queue: 'platform',
  timeout: 600,
  lockTtlSeconds: 900,
  manualTriggerable: true,
  handler: (deps, run) => terminateOverdueServices(deps, run),
};

export const unsuspendRenewedTask: BuiltinTask = {
  key: 'services.unsuspend_renewed',
  title: '恢复已续费的暂停服务',
  description: '每次心跳（15 分钟）通过上游恢复因逾期被暂停、现已续费（到期时间在未来）的服务；上游确认后才变更本地状态。',
  category: 'services',
  triggers: [{ type: 'heartbeats', every: 1 }],
  queue: 'platform',
  timeout: 600,
  lockTtlSeconds: 840,
  manualTriggerable: true,
  handler: (deps, run) => unsuspendRenewedServices(deps, run),
};

export const syncHostsTask: BuiltinTask = {
  key: 'upstream.sync_hosts',
  title: '轮询上游主机状态',
  description: '每次心跳（15 分钟）按供应商分页（limit=100）拉取上游主机列表，更新已绑定服务的上游状态、IP、附加 IP 与上游到期时间；主机消失的服务记录事件。单个供应商失败不影响其他供应商。',
  category: 'upstream',
  triggers: [{ type: 'heartbeats', every: 1 }],
  queue: 'automation',
  timeout: 600,
  lockTtlSeconds: 840,
  manualTriggerable: true,
  handler: (deps) => syncUpstreamHosts(deps),
};

export const cancelStaleInvoicesTask: BuiltinTask = {
  key: 'billing.cancel_stale_invoices',
  title: '取消长期未支付的账单',
  description: '每天取消创建超过 STALE_INVOICE_CANCEL_DAYS 天仍未支付的新购与流量包账单，已终止服务的未支付续费账单，以及报价日已过的未支付升降级账单（有进行中的扫码支付时保留）。',
  category: 'billing',
  triggers: [{ type: 'cadence', cadence: 'daily' }],
  queue: 'platform',
  timeout: 300,
  lockTtlSeconds: 600,
  manualTriggerable: true,
  handler: (deps) => cancelStaleInvoices(deps),
};

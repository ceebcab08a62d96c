import { reconcileSuppliers } from '../../economics/reconciliation/reconcile.js';
import type { BuiltinTask } from '../types.js';

/** Reconciliation with the supplier (docs/economics.md): findings only, nothing else changes. */
export const reconcileSuppliersTask: BuiltinTask = {
  key: 'upstream.reconcile',
  title: '与上游供应商对账',
  description:
    '每天按供应商分页（limit=100）拉取上游主机列表与账单列表，与本地服务、上游绑定和服务订单比对，记录差异：上游有而本地无的主机、本地有效但上游已消失/暂停/过期的服务、到期时间不一致、无本地订单的上游已付账单。同一差异只更新最后发现时间；不再出现的差异自动标记为已解决；除差异记录外不修改任何数据。上游不提供账单列表时本次不比对账单。',
  category: 'upstream',
  triggers: [{ type: 'cadence', cadence: 'daily' }],
  queue: 'automation',
  timeout: 900,
  lockTtlSeconds: 1020,
  manualTriggerable: true,
  handler: (deps, run) => reconcileSuppliers(deps, run),
};

import type { ServiceStatus } from '../../../db/models/service.js';
import type { PreparedServiceOrder } from '../../../workflows/service-order/contract.js';
import type { Actor } from '../../../lib/actor.js';
import { serviceOrderWork } from '../kinds.js';
import { recordAdminRetry } from '../record.js';
import type { DomainDeps } from '../../deps.js';
import { RENEWABLE_STATUSES } from '../../services/renewals/renewal-rules.js';
import { SERVICE_STATUS_LABELS } from '../../services/service-labels.js';
import { loadServiceOrder } from './order-record.js';

/**
 * The start of a run (and of every admin retry): the order becomes `processing`, its upstream
 * target (supplier, host) is taken from the service's binding while nothing has been asked
 * upstream yet (afterwards it stays: a recorded bill belongs to that host), and the service must
 * still take it: a renewal needs an active or suspended service, a traffic package an active
 * one with an upstream host, an upgrade an active one whose due date is still the one it was
 * quoted for (`refused` otherwise, which the workflow shows to an admin). Once the
 * upstream bill is paid nothing refuses any more: only the local step is left.
 */
export async function prepareServiceOrder(
  deps: DomainDeps,
  input: { invoiceId: number; workflowId: string; retriedBy?: Actor | null },
): Promise<PreparedServiceOrder> {
  const { Service, ServiceUpstreamBinding, Supplier } = deps.db.models;
  return deps.db.sequelize.transaction(async (transaction) => {
    const order = await loadServiceOrder(deps, input.invoiceId, transaction);
    if (order.status === 'succeeded' || order.status === 'cancelled') return { kind: 'finished', outcome: order.status };
    const service = await Service.findByPk(order.service_id, { transaction, attributes: ['id', 'user_id', 'status', 'next_due_at'] });
    const binding = await ServiceUpstreamBinding.findByPk(order.service_id, { transaction });
    const untouched = order.upstream_requested_at === null && order.upstream_invoice_id === null;
    const supplierId = untouched ? (binding?.upstream_host_id ? binding.supplier_id : null) : order.supplier_id;
    const hostId = untouched ? (binding?.upstream_host_id ?? null) : order.upstream_host_id;
    await order.update(
      { status: 'processing', runs: order.runs + 1, supplier_id: supplierId, upstream_host_id: hostId, failure_code: null, failure_reason: null },
      { transaction },
    );
    if (input.retriedBy) await recordAdminRetry(deps, serviceOrderWork(input.invoiceId), { retriedBy: input.retriedBy, workflowId: input.workflowId }, transaction);
    const base = { serviceId: order.service_id, userId: order.user_id };
    const status: ServiceStatus | null = service?.status ?? null;
    if (order.upstream_paid_at === null) {
      const allowed: readonly ServiceStatus[] = order.kind === 'renew' ? RENEWABLE_STATUSES : ['active'];
      if (!status || !allowed.includes(status)) {
        const label = status ? SERVICE_STATUS_LABELS[status] : '不存在';
        const what = order.kind === 'renew' ? '续费' : order.kind === 'upgrade' ? '变更配置' : '购买流量包';
        return { kind: 'refused', ...base, code: 'service_state', reason: `服务${label}，不能${what}` };
      }
      if (order.kind === 'upgrade' && order.upstream_requested_at === null) {
        // The proration was for the period ending at the invoice's due date: a renewal (or an
        // admin) that moved it since makes the quote wrong, so an admin decides (cancel refunds).
        const invoice = await deps.db.models.Invoice.findByPk(order.invoice_id, { transaction, attributes: ['id', 'due_at'] });
        if ((invoice?.due_at?.getTime() ?? null) !== (service?.next_due_at?.getTime() ?? null)) {
          return { kind: 'refused', ...base, code: 'period_changed', reason: '服务到期时间在报价后已变化，按原报价变更配置不再准确，请取消（退款）后重新下单' };
        }
      }
      if (!supplierId && binding) return { kind: 'refused', ...base, code: 'host_unbound', reason: '服务尚未绑定上游主机，无法向上游下单' };
      if (!supplierId && order.kind === 'traffic_package') return { kind: 'refused', ...base, code: 'no_upstream', reason: '服务没有上游主机，无法购买流量包' };
    }
    if (!supplierId) return { kind: 'local', ...base };
    const supplier = await Supplier.findByPk(supplierId, { transaction, attributes: ['id', 'code', 'interface_type'] });
    return {
      kind: 'upstream',
      ...base,
      supplierCode: supplier?.code ?? '',
      providerKey: binding?.provider_key || supplier?.interface_type || '',
    };
  });
}

import { AppError, ErrorCode } from '../../../lib/errors.js';
import { formatDateTime } from '../../../lib/time.js';
import type { DomainDeps } from '../../deps.js';
import { extendDueDate, renewalBase } from '../../services/renewals/renewal-rules.js';
import { loadServiceOrder, recordOrderEvent } from './order-record.js';
import { applyUpgrade } from '../../services/upgrades/apply-upgrade.js';
import type { ServiceOrderRow } from '../../../db/models/service-order.js';

/**
 * The local effect of a fulfilled order, exactly once (the order row is locked and `succeeded`
 * is written in the same transaction): a renewal moves the service's due date by its months
 * from the current due date (`renewalBase`), a traffic package is recorded, an upgrade changes
 * the service's configuration and locked price (and credits a downgrade: `applyUpgrade`); the money order
 * becomes `completed`. An upstream order must have its bill paid first (also a database CHECK).
 */
export async function completeServiceOrder(deps: DomainDeps, input: { invoiceId: number; workflowId: string }): Promise<{ dueAfter: Date | null }> {
  const { Service, Order } = deps.db.models;
  return deps.db.sequelize.transaction(async (transaction) => {
    const order = await loadServiceOrder(deps, input.invoiceId, transaction);
    if (order.status === 'succeeded') return { dueAfter: order.due_after };
    if (order.status === 'cancelled') throw new AppError(ErrorCode.SERVICE_ORDER_NOT_AWAITING, '订单已取消，不能完成');
    if (order.supplier_id !== null && order.upstream_paid_at === null) throw new AppError(ErrorCode.CONFLICT, '上游账单尚未支付，不能完成');
    const now = new Date();
    let dueBefore: Date | null = null;
    let dueAfter: Date | null = null;
    let message = `流量包已到账：${order.package_name || `#${order.package_id ?? ''}`}`;
    if (order.kind === 'renew') {
      const service = await Service.findByPk(order.service_id, { transaction, lock: transaction.LOCK.UPDATE, attributes: ['id', 'next_due_at'] });
      dueBefore = service?.next_due_at ?? null;
      dueAfter = extendDueDate(renewalBase(dueBefore, now), order.months ?? 0);
      await Service.update({ next_due_at: dueAfter }, { where: { id: order.service_id }, transaction });
      message = `续费成功，到期时间 ${formatDateTime(dueBefore) ?? '无'} → ${formatDateTime(dueAfter) ?? ''}`;
    }
    let upgrade: Partial<Pick<ServiceOrderRow, 'config_before' | 'price_before' | 'credit_transaction_id'>> = {};
    if (order.kind === 'upgrade') {
      const applied = await applyUpgrade(deps, order, transaction);
      message = applied.message;
      upgrade = { config_before: applied.configBefore, price_before: applied.priceBefore, credit_transaction_id: applied.creditTransactionId };
    }
    await order.update(
      { status: 'succeeded', stage: 'done', stage_changed_at: now, completed_at: now, due_before: dueBefore, due_after: dueAfter, failure_code: null, failure_reason: null, ...upgrade },
      { transaction },
    );
    await Order.update({ status: 'completed', completed_at: now }, { where: { invoice_id: order.invoice_id, status: 'paid' }, transaction });
    await recordOrderEvent(
      deps,
      order,
      {
        stage: 'done',
        status: 'succeeded',
        message,
        detail: { invoice_id: order.invoice_id, upstream_invoice_id: order.upstream_invoice_id, upstream: order.supplier_id !== null },
        workflowId: input.workflowId,
      },
      transaction,
    );
    return { dueAfter };
  });
}

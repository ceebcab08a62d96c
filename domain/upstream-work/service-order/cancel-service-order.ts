import { AppError, ErrorCode } from '../../../lib/errors.js';
import { actorAudit } from '../../billing/audit.js';
import { createRefund } from '../../billing/refunds/create-refund.js';
import { type Actor, deciderActor } from '../../../lib/actor.js';
import type { DomainDeps } from '../../deps.js';
import { loadServiceOrder, recordOrderEvent } from './order-record.js';
import { money } from '../../../lib/money.js';
import { upgradeRefund } from '../../services/upgrades/proration.js';

/** The trace id of the one refund a cancelled order may make (found again by it on a retry). */
export function serviceOrderCancelTraceId(invoiceId: number): string {
  return `service-order-cancel:${invoiceId}`;
}

/**
 * An admin cancelled an order that cannot complete: what is still refundable of its invoice goes
 * back to the user's balance (one refund, found again by its trace id on a retry), then the
 * order is `cancelled`. Refused once the upstream bill is paid: the money went upstream, so
 * only retrying (the local step) is right.
 */
export async function cancelServiceOrder(deps: DomainDeps, input: { invoiceId: number; decider: Actor; reason: string; workflowId: string }): Promise<{ refundNo: string | null }> {
  const { Refund, Invoice, ServiceOrder } = deps.db.models;
  const order = await loadServiceOrder(deps, input.invoiceId);
  if (order.status === 'cancelled') {
    const done = order.refund_id ? await Refund.findByPk(order.refund_id) : null;
    return { refundNo: done?.refund_no ?? null };
  }
  if (order.status === 'succeeded') throw new AppError(ErrorCode.SERVICE_ORDER_NOT_AWAITING, '订单已完成，不能取消');
  if (order.upstream_paid_at !== null) throw new AppError(ErrorCode.CONFLICT, '上游账单已支付，不能取消，请选择重试');
  const traceId = serviceOrderCancelTraceId(order.invoice_id);
  let refund = await Refund.findOne({ where: { trace_id: traceId, status: ['processing', 'succeeded'] } });
  const invoice = await Invoice.findByPk(order.invoice_id);
  // An upgrade refunds what it charged and nothing more (a downgrade charged 0.00: nothing).
  const refundable = invoice ? money(upgradeRefund(invoice.amount, invoice.refunded_amount, null)) : money(0);
  if (!refund && invoice && (invoice.status === 'paid' || invoice.status === 'partially_refunded') && refundable.gt(0)) {
    const created = await createRefund(
      deps,
      { userId: order.user_id, invoiceId: order.invoice_id, method: 'balance', amount: order.kind === 'upgrade' ? refundable : null, reason: `订单取消：${input.reason}`.slice(0, 255), scope: ['order'] },
      actorAudit(deciderActor(input.decider), traceId),
    );
    refund = await Refund.findByPk(created.refund.id);
  }
  await deps.db.sequelize.transaction(async (transaction) => {
    const now = new Date();
    await ServiceOrder.update(
      { status: 'cancelled', stage: 'cancelled', stage_changed_at: now, cancelled_at: now, refund_id: refund?.id ?? null },
      { where: { id: order.id, status: ['pending', 'processing', 'awaiting_admin'] }, transaction },
    );
    await recordOrderEvent(
      deps,
      order,
      {
        stage: 'cancelled',
        status: 'succeeded',
        message: refund ? `管理员已取消，退款 ${refund.amount} 元至余额` : '管理员已取消',
        detail: { refund_no: refund?.refund_no ?? null, reason: input.reason },
        workflowId: input.workflowId,
        operator: deciderActor(input.decider),
      },
      transaction,
    );
  });
  return { refundNo: refund?.refund_no ?? null };
}

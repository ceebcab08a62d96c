import type { Transaction } from 'sequelize';
import type { ServiceOrderRow } from '../../../db/models/service-order.js';
import { formatMoney, money } from '../../../lib/money.js';
import { systemAudit } from '../../billing/audit.js';
import { postAccountTransaction } from '../../billing/ledger/post-account-transaction.js';
import { sqlOne } from '../../../db/sql.js';
import type { DomainDeps } from '../../deps.js';

/** The idempotency key of a downgrade's one credit (UNIQUE in the ledger). */
export function upgradeCreditKey(invoiceNo: string): string {
  return `upgrade-credit:${invoiceNo}`;
}

/**
 * The local effect of a confirmed configuration change, inside `completeServiceOrder`'s
 * transaction (the order row locked, `succeeded` written in the same transaction, so once): the
 * service's configuration takes the target choices and its locked price becomes the new price
 * (for the rest of the period and every renewal after it; the due date does not move); what it
 * replaced is kept on the order. A downgrade's credit goes to the balance as one
 * `upgrade_credit` ledger entry (keyed by the invoice number), only now that the upstream
 * confirmed the change. Answers the history message and the credit transaction id.
 */
export async function applyUpgrade(
  deps: DomainDeps,
  order: ServiceOrderRow,
  transaction: Transaction,
): Promise<{ message: string; creditTransactionId: number | null; configBefore: Record<string, unknown>; priceBefore: string }> {
  const service = await sqlOne<{ id: number; user_id: number; config: Record<string, unknown>; price: string }>(
    deps,
    'SELECT id, user_id, config, price FROM services WHERE id = $1 FOR UPDATE',
    [order.service_id],
    transaction,
  );
  if (!service) throw new Error(`service ${order.service_id} of upgrade order ${order.id} is gone`);
  const target = order.upgrade_config ?? {};
  const price = formatMoney(order.upgrade_price ?? service.price);
  await sqlOne(deps, `UPDATE services SET config = $2, price = $3, updated_at = now() WHERE id = $1 RETURNING id`, [service.id, JSON.stringify({ ...service.config, ...target }), price], transaction);
  let creditTransactionId: number | null = null;
  const credit = money(order.upgrade_credit);
  if (credit.gt(0)) {
    const invoice = await sqlOne<{ invoice_no: string }>(deps, 'SELECT invoice_no FROM invoices WHERE id = $1', [order.invoice_id], transaction);
    const posted = await postAccountTransaction(
      deps,
      {
        userId: order.user_id,
        type: 'upgrade_credit',
        amount: credit,
        idempotencyKey: upgradeCreditKey(invoice?.invoice_no ?? String(order.invoice_id)),
        invoiceId: order.invoice_id,
        remark: '配置降级，按剩余天数退还差价',
        audit: systemAudit(order.workflow_id.slice(0, 64)),
      },
      transaction,
    );
    creditTransactionId = posted.id;
  }
  const labels = Object.values(target)
    .map((c) => (c && typeof c === 'object' && 'label' in c ? String((c as { label: unknown }).label) : ''))
    .filter((l) => l !== '')
    .join('，');
  const message = `配置变更成功：${labels}；锁定价格 ${formatMoney(service.price)} → ${price}${credit.gt(0) ? `；退还差价 ${formatMoney(credit)} 元至余额` : ''}`;
  return { message: message.slice(0, 255), creditTransactionId, configBefore: service.config, priceBefore: formatMoney(service.price) };
}

import type { Decimal } from 'decimal.js';
import { formatMoney } from '../../../lib/money.js';
import { CATALOGUE_CHANNEL } from '../../catalogue/catalogue-cache.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import { ORDER_TYPE_BY_INVOICE, RECHARGE_SCENE_BY_INVOICE } from '../constants.js';
import { INVOICE_COLUMNS, type InvoiceRecord, type PaymentChannel } from '../../../db/models/billing.js';
import { insertRechargeRecord } from '../ledger/insert-recharge-record.js';
import { postAccountTransaction } from '../ledger/post-account-transaction.js';
import { sqlOne, sqlRows, type Tx } from '../../../db/sql.js';
import { FULFILMENT_KEY_PREFIX, OUTBOX_CHANNEL, TRY_NOW_GRACE_MS } from '../../outbox/intents.js';
import { FULFILLED_TYPES } from '../fulfilment/dispatch-fulfilment.js';
import { label, paymentsSettled } from '../../../lib/metrics.js';
import { finalizeCouponUse } from '../../marketing/coupon-uses.js';
import { settleCommission } from '../../marketing/commissions.js';

export type SettlementParts = {
  balance: Decimal;
  thirdParty: Decimal;
  channel: PaymentChannel;
  /** The third-party payment, when there is one. */
  paymentId: number | null;
};

export type Settlement = { invoice: InvoiceRecord; rechargeRecordId: number | null; accountTransactionId: number | null };

/**
 * Marks a locked, unpaid invoice paid with its parts, and does the fulfilment that belongs in
 * the same transaction: a recharge credits the balance (and is then fully dispatched); a
 * purchase, renewal or traffic package marks its order paid; a purchase creates its service
 * rows (`pending`, one per instance; UNIQUE per invoice line). A third-party part leaves a
 * recharge record with the scene of the invoice type. What starts workflows runs after
 * commit (`dispatchFulfilment`); the promise to run it is the `fulfil:<invoice id>` outbox row
 * written here, which the relay performs if nobody else does.
 */
export async function settleInvoice(deps: DomainDeps, locked: InvoiceRecord, parts: SettlementParts, audit: Audit, transaction: Tx): Promise<Settlement> {
  // The fulfilment promise is written by the same statement (no extra round trip on the hot
  // path): its outbox row commits with the payment or not at all, and wakes the relay.
  const invoice = await sqlOne<InvoiceRecord>(
    deps,
    `WITH settled AS (
       UPDATE invoices SET status = 'paid', balance_amount = $2, third_party_amount = $3, payment_channel = $4, paid_at = now(),
           dispatched_at = CASE WHEN type = 'recharge' THEN now() ELSE dispatched_at END, updated_at = now()
         WHERE id = $1 AND status = 'unpaid' RETURNING ${INVOICE_COLUMNS}
     ), intent AS (
       INSERT INTO outbox (kind, key, payload, next_attempt_at)
       SELECT 'start_fulfilment', $5 || id, jsonb_build_object('invoice_id', id), now() + make_interval(secs => $6::int / 1000.0)
         FROM settled WHERE type = ANY($7::varchar[])
       ON CONFLICT (key) DO NOTHING RETURNING pg_notify($8, $6::int::text)
     )
     SELECT * FROM settled`,
    [
      locked.id,
      formatMoney(parts.balance),
      formatMoney(parts.thirdParty),
      parts.channel,
      FULFILMENT_KEY_PREFIX,
      TRY_NOW_GRACE_MS,
      FULFILLED_TYPES,
      OUTBOX_CHANNEL,
    ],
    transaction,
  );
  if (!invoice) throw new Error(`invoice ${locked.invoice_no} is not unpaid at settlement`);
  // Counted at the guarded UPDATE; a transaction rolled back after it (rare) counts once too many.
  paymentsSettled.inc({ method: label(parts.channel) });

  let accountTransactionId: number | null = null;
  if (invoice.type === 'recharge' && parts.thirdParty.gt(0)) {
    const posted = await postAccountTransaction(
      deps,
      {
        userId: invoice.user_id,
        type: 'recharge',
        amount: parts.thirdParty,
        idempotencyKey: `recharge:${invoice.invoice_no}`,
        invoiceId: invoice.id,
        paymentId: parts.paymentId,
        remark: '充值到账',
        audit,
      },
      transaction,
    );
    accountTransactionId = posted.id;
  }

  let orderId: number | null = null;
  if (ORDER_TYPE_BY_INVOICE[invoice.type]) {
    const order = await sqlOne<{ id: number }>(
      deps,
      `UPDATE orders SET status = 'paid', paid_at = now(), updated_at = now() WHERE invoice_id = $1 AND status = 'pending' RETURNING id`,
      [invoice.id],
      transaction,
    );
    orderId = order?.id ?? null;
    if (invoice.type === 'purchase' && order) await createPurchasedServices(deps, invoice, order.id, transaction);
  }

  // Marketing follows the payment in the same transaction: the coupon use becomes final, and the
  // referrer's commission (`commission:<invoice_no>`, UNIQUE) is booked pending.
  await finalizeCouponUse(deps, invoice.id, transaction);
  await settleCommission(deps, invoice, transaction);

  let rechargeRecordId: number | null = null;
  const scene = RECHARGE_SCENE_BY_INVOICE[invoice.type];
  if (parts.thirdParty.gt(0) && parts.paymentId !== null && scene) {
    rechargeRecordId = await insertRechargeRecord(
      deps,
      {
        userId: invoice.user_id,
        invoiceId: invoice.id,
        orderId,
        paymentId: parts.paymentId,
        accountTransactionId,
        scene,
        entryType: 'third_party',
        amount: formatMoney(parts.thirdParty),
        remark: invoice.type === 'recharge' ? '扫码充值' : `扫码支付：${invoice.subject}`,
        audit,
      },
      transaction,
    );
  }
  return { invoice, rechargeRecordId, accountTransactionId };
}

/** One `pending` service per purchased instance, with the product (and its name at order time), period and configuration the invoice was priced for. */
async function createPurchasedServices(deps: DomainDeps, invoice: InvoiceRecord, orderId: number, transaction: Tx): Promise<void> {
  const p = invoice.payload;
  await sqlRows(
    deps,
    `INSERT INTO services (user_id, product_id, order_id, invoice_id, seq, status, product_type, billing_period, config, price, product_name)
     SELECT $1, $2, $3, $4, n, 'pending', $5, $6, $7, $8, $10 FROM generate_series(1, $9::int) AS n
     ON CONFLICT (invoice_id, seq) DO NOTHING RETURNING id`,
    [
      invoice.user_id,
      p.product_id,
      orderId,
      invoice.id,
      p.product_type,
      p.billing_period,
      JSON.stringify(p.config ?? {}),
      p.unit_price,
      p.quantity,
      String(p.product_name ?? '').slice(0, 128),
    ],
    transaction,
  );
  // The sold instances leave the local stock (never below zero: the payment already happened),
  // and every API process drops its cached catalogue once this commits.
  const stocked = await sqlRows(
    deps,
    'UPDATE products SET stock_qty = GREATEST(stock_qty - $2::int, 0), updated_at = now() WHERE id = $1 AND stock_control RETURNING id',
    [p.product_id, p.quantity],
    transaction,
  );
  if (stocked.length > 0) await sqlRows(deps, "SELECT pg_notify($1, '{}') AS sent", [CATALOGUE_CHANNEL], transaction);
}

import type { Decimal } from 'decimal.js';
import { formatMoney } from '../../../lib/money.js';
import { CATALOGUE_CHANNEL } from '../../catalogue/catalogue-cache.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import { INVOICE_KINDS, invoiceTypesWhere } from '../invoice-kinds.js';
import { INVOICE_COLUMNS, type InvoiceRecord, type PaymentChannel } from '../../../db/models/billing.js';
import { insertRechargeRecord } from '../ledger/insert-recharge-record.js';
import { postAccountTransaction } from '../ledger/post-account-transaction.js';
import { namedStatement, sqlOne, type Tx } from '../../../db/sql.js';
import { onCommit } from '../../../db/commit-hooks.js';
import { FULFILMENT_KEY_PREFIX, fulfilmentIntentSql, OUTBOX_CHANNEL } from '../../outbox/intents.js';
import { FULFILLED_TYPES } from '../../upstream-work/dispatch-fulfilment.js';
import { label, paymentsSettled } from '../../../lib/metrics.js';
import { finalizeCouponUseCte } from '../../marketing/coupon-uses.js';
import { commissionCtes, commissionValues, type CommissionParam } from '../../marketing/commissions.js';
import { readReferralConfig } from '../../marketing/referral-config.js';

export type SettlementParts = {
  balance: Decimal;
  thirdParty: Decimal;
  channel: PaymentChannel;
  /** The third-party payment, when there is one. */
  paymentId: number | null;
};

export type Settlement = { invoice: InvoiceRecord; rechargeRecordId: number | null; accountTransactionId: number | null };

/** Invoice types whose settlement marks their order paid (a purchase also creates its services). */
const ORDERED_TYPES = invoiceTypesWhere('orderType');
/** Invoice types whose settlement creates their services, to be provisioned (a purchase), and takes them from the stock. */
const PROVISIONED_TYPES = invoiceTypesWhere('fulfilment', 'provisioning');
/** Invoice types fulfilled by the settlement itself (a recharge): dispatched at once. */
const SETTLED_IN_PLACE_TYPES = invoiceTypesWhere('fulfilment', 'settlement');

type SettleParam =
  | 'invoiceId'
  | 'balanceAmount'
  | 'thirdPartyAmount'
  | 'channel'
  | 'fulfilmentKeyPrefix'
  | 'fulfilledTypes'
  | 'outboxChannel'
  | 'orderedTypes'
  | 'provisionedTypes'
  | 'settledInPlaceTypes'
  | 'catalogueChannel'
  | CommissionParam;

/**
 * The settlement in one statement (one round trip on every payment path; the parts are CTEs
 * that read the `settled` row, so an invoice that was not unpaid changes nothing at all):
 * - `settled`: the invoice paid with its parts (one fulfilled by the settlement, a recharge, also marked dispatched);
 * - `intent`: the fulfilment promise, the `fulfil:<invoice id>` outbox row, due at once, and the
 *   relay's wake-up (`NOTIFY outbox`, delivered on commit);
 * - `paid_order`: its order paid (a kind with an `orderType`);
 * - `new_services`: a purchase's `pending` services, one per instance, with the product (and
 *   its name at order time), period and configuration the invoice was priced for (UNIQUE per
 *   invoice line);
 * - `stocked`: the sold instances leave the local stock (never below zero: the payment already
 *   happened), and every API process drops its cached catalogue once this commits;
 * - the coupon use becomes final, and the referrer's commission is booked pending.
 */
const SETTLE = namedStatement<SettleParam>(
  (p) => `WITH settled AS (
     UPDATE invoices SET status = 'paid', balance_amount = ${p('balanceAmount')}, third_party_amount = ${p('thirdPartyAmount')}, payment_channel = ${p('channel')}, paid_at = now(),
         dispatched_at = CASE WHEN type = ANY(${p('settledInPlaceTypes')}::varchar[]) THEN now() ELSE dispatched_at END, updated_at = now()
       WHERE id = ${p('invoiceId')} AND status = 'unpaid' RETURNING ${INVOICE_COLUMNS}
   ), intent AS (
     ${fulfilmentIntentSql(`settled WHERE type = ANY(${p('fulfilledTypes')}::varchar[])`, p('fulfilmentKeyPrefix'), p('outboxChannel'))}
   ), paid_order AS (
     UPDATE orders o SET status = 'paid', paid_at = now(), updated_at = now()
       FROM settled s WHERE o.invoice_id = s.id AND o.status = 'pending' AND s.type = ANY(${p('orderedTypes')}::varchar[]) RETURNING o.id
   ), new_services AS (
     INSERT INTO services (user_id, product_id, order_id, invoice_id, seq, status, product_type, billing_period, config, price, product_name)
     SELECT s.user_id, (s.payload->>'product_id')::int, o.id, s.id, n, 'pending', s.payload->>'product_type', s.payload->>'billing_period',
            COALESCE(s.payload->'config', '{}'::jsonb), (s.payload->>'unit_price')::numeric, left(COALESCE(s.payload->>'product_name', ''), 128)
       FROM settled s CROSS JOIN paid_order o CROSS JOIN generate_series(1, (s.payload->>'quantity')::int) AS n
      WHERE s.type = ANY(${p('provisionedTypes')}::varchar[])
     ON CONFLICT (invoice_id, seq) DO NOTHING RETURNING id
   ), stocked AS (
     UPDATE products p SET stock_qty = GREATEST(p.stock_qty - (s.payload->>'quantity')::int, 0), updated_at = now()
       FROM settled s WHERE s.type = ANY(${p('provisionedTypes')}::varchar[]) AND EXISTS (SELECT 1 FROM paid_order)
        AND p.id = (s.payload->>'product_id')::int AND p.stock_control
     RETURNING pg_notify(${p('catalogueChannel')}, '{}')
   ), ${finalizeCouponUseCte('settled')}, ${commissionCtes('settled', p)}
   SELECT settled.*, (SELECT id FROM paid_order) AS paid_order_id FROM settled`,
);

/**
 * Marks a locked, unpaid invoice paid with its parts, and does the fulfilment that belongs in
 * the same transaction (`SETTLE`, one statement): an invoice with an order marks it paid; a
 * purchase creates its service rows; marketing follows the
 * payment (coupon use final, the referrer's commission `commission:<invoice_no>` pending). A
 * recharge then credits the balance; a third-party part leaves a recharge record with the scene
 * of the invoice type. What starts workflows runs after commit (`dispatchFulfilment`), and only
 * the outbox relay runs it, performing the `fulfil:<invoice id>` row written here.
 */
export async function settleInvoice(deps: DomainDeps, locked: InvoiceRecord, parts: SettlementParts, audit: Audit, transaction: Tx): Promise<Settlement> {
  const referral = await readReferralConfig(deps);
  const row = await sqlOne<InvoiceRecord & { paid_order_id: number | null }>(
    deps,
    SETTLE,
    SETTLE.values({
      invoiceId: locked.id,
      balanceAmount: formatMoney(parts.balance),
      thirdPartyAmount: formatMoney(parts.thirdParty),
      channel: parts.channel,
      fulfilmentKeyPrefix: FULFILMENT_KEY_PREFIX,
      fulfilledTypes: FULFILLED_TYPES,
      outboxChannel: OUTBOX_CHANNEL,
      orderedTypes: ORDERED_TYPES,
      provisionedTypes: PROVISIONED_TYPES,
      settledInPlaceTypes: SETTLED_IN_PLACE_TYPES,
      catalogueChannel: CATALOGUE_CHANNEL,
      ...commissionValues(referral),
    }),
    transaction,
  );
  if (!row) throw new Error(`invoice ${locked.invoice_no} is not unpaid at settlement`);
  const { paid_order_id: orderId, ...invoice } = row;
  // Counted once the settlement commits (docs/operations.md "Metrics": a count of paid invoices
  // from rows would scan millions of them per scrape).
  onCommit(transaction, () => paymentsSettled.inc({ method: label(parts.channel) }));

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

  let rechargeRecordId: number | null = null;
  const scene = INVOICE_KINDS[invoice.type].rechargeScene;
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

import { Decimal } from 'decimal.js';
import { formatMoney, money } from '../../lib/money.js';
import type { DomainDeps } from '../deps.js';
import { inTransaction, namedStatement, sqlOne, sqlRows, type Param, type Tx } from '../../db/sql.js';
import { INVOICE_COLUMNS, type InvoiceRecord } from '../../db/models/billing.js';
import { invoiceTypesWhere } from '../billing/invoice-kinds.js';
import { readReferralConfig, type ReferralConfig } from './referral-config.js';

/** Invoices of an invitee that earn their referrer a commission (`earnsCommission`: what was bought, not recharges). */
const COMMISSIONED_TYPES = invoiceTypesWhere('earnsCommission');

/** A commission of `rate` percent on `base`, cut (never rounded up) to the cent. */
export function commissionOf(base: Decimal.Value, rate: Decimal.Value): Decimal {
  return money(base).times(rate).div(100).toDecimalPlaces(2, Decimal.ROUND_DOWN);
}

/**
 * What the clawbacks of a commission add up to once `refunded` of the invoice's `amount` went
 * back: the commission's share of the refunded part, cut to the cent; all of it on a full
 * refund. The integrity check computes the same in SQL.
 */
export function clawbackTarget(commission: Decimal.Value, refunded: Decimal.Value, amount: Decimal.Value): Decimal {
  if (money(refunded).gte(amount)) return money(commission);
  return money(commission).times(refunded).div(amount).toDecimalPlaces(2, Decimal.ROUND_DOWN);
}

/**
 * The referrer's commission on a paid invoice of their invitee, as CTEs of the statement that
 * reads the invoice as `source` (columns id, user_id, type, amount, invoice_no; no row: nothing
 * booked): `pending` until the holding period is over, keyed `commission:<invoice_no>` (UNIQUE,
 * `ON CONFLICT DO NOTHING`), so settling again books nothing twice, and the referrer's pending
 * amount grows by what was booked. The rate is the product's commission rate if an admin set one,
 * else the referrer's member level's, else the default (`rate`); the amount is cut (never rounded
 * up) to the cent, as `commissionOf`. The settlement runs these inside its own statement
 * (domain/billing/payments/settle-invoice.ts), a `namedStatement` whose values include
 * `commissionValues(config)`.
 */
export function commissionCtes(source: string, p: Param<CommissionParam>): string {
  return `commission_referrer AS (
       SELECT a.referrer_id, s.id AS invoice_id, s.user_id AS invitee_id, s.amount, s.invoice_no,
              COALESCE((SELECT r.rate FROM orders o JOIN commission_product_rates r ON r.product_id = o.product_id WHERE o.invoice_id = s.id),
                       (SELECT l.commission_rate FROM user_member_levels u JOIN member_levels l ON l.id = u.level_id WHERE u.user_id = a.referrer_id),
                       ${p('defaultCommissionRate')}::numeric) AS rate
         FROM ${source} s JOIN referral_accounts a ON a.user_id = s.user_id AND a.referrer_id IS NOT NULL
        WHERE s.type = ANY(${p('commissionedTypes')}::varchar[]) AND s.amount > 0
     ), commission_entry AS (
       INSERT INTO commission_entries (user_id, invitee_id, invoice_id, kind, base_amount, rate, amount, status, available_at, idempotency_key)
       SELECT referrer_id, invitee_id, invoice_id, 'commission', amount, rate, trunc(amount * rate / 100, 2), 'pending',
              now() + make_interval(days => ${p('commissionHoldingDays')}::int), 'commission:' || invoice_no
         FROM commission_referrer WHERE trunc(amount * rate / 100, 2) > 0
       ON CONFLICT DO NOTHING RETURNING user_id, amount
     ), commission_credited AS (
       UPDATE referral_accounts a SET pending_amount = a.pending_amount + e.amount, updated_at = now()
         FROM commission_entry e WHERE a.user_id = e.user_id RETURNING a.user_id
     )`;
}

/** The named parameters of `commissionCtes`. */
export type CommissionParam = 'defaultCommissionRate' | 'commissionHoldingDays' | 'commissionedTypes';

/** The values of `commissionCtes`'s parameters under the referral configuration. */
export function commissionValues(config: ReferralConfig): Record<CommissionParam, unknown> {
  return { defaultCommissionRate: config.defaultCommissionRate, commissionHoldingDays: config.holdingDays, commissionedTypes: COMMISSIONED_TYPES };
}

const RESETTLE_COMMISSION = namedStatement<'invoiceId' | CommissionParam>(
  (p) => `WITH target AS (
     SELECT id, user_id, type, amount, invoice_no FROM invoices WHERE id = ${p('invoiceId')} AND paid_at IS NOT NULL
   ), ${commissionCtes('target', p)}
   SELECT (SELECT count(*) FROM commission_credited)::int AS booked`,
);

/**
 * Books the referrer's commission on a paid invoice (see `commissionCtes`) in the caller's
 * transaction, the invoice row locked; refunds already made (a late, repeated settlement) are
 * clawed back at once.
 */
export async function settleCommission(deps: DomainDeps, invoice: InvoiceRecord, tx: Tx): Promise<void> {
  if (invoice.paid_at === null) return;
  const config = await readReferralConfig(deps);
  await sqlRows(deps, RESETTLE_COMMISSION, RESETTLE_COMMISSION.values({ invoiceId: invoice.id, ...commissionValues(config) }), tx);
  if (money(invoice.refunded_amount).gt(0)) await clawBackCommissions(deps, invoice.id, tx);
}

/**
 * Settles the commission of a paid invoice again (repair, or a retried settlement): the
 * invoice row lock orders it with refunds, and the idempotency key makes it a no-op once booked.
 */
export async function resettleCommission(deps: DomainDeps, invoiceId: number): Promise<void> {
  await inTransaction(deps, async (tx) => {
    const invoice = await sqlOne<InvoiceRecord>(deps, `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE id = $1 FOR UPDATE`, [invoiceId], tx);
    if (invoice && invoice.status !== 'unpaid' && invoice.status !== 'cancelled') await settleCommission(deps, invoice, tx);
  });
}

/**
 * After a refund of the invoice succeeded (its row locked by the caller): the negative entry
 * that brings the commission's clawbacks to `clawbackTarget` of what is refunded now, keyed
 * `clawback:<refund_no>` (UNIQUE per refund). A still pending commission is clawed back pending
 * (released with it, netting out); an available one from the available amount, which may go
 * below zero when the commission was already withdrawn (a debt later commissions pay off).
 */
export async function clawBackCommissions(deps: DomainDeps, invoiceId: number, tx: Tx): Promise<void> {
  const state = await sqlOne<{
    commission_amount: string;
    commission_status: string;
    available_at: Date;
    user_id: number;
    invitee_id: number;
    base_amount: string;
    rate: string;
    refunded_amount: string;
    invoice_amount: string;
    clawed: string;
    refund_id: number | null;
    refund_no: string | null;
  }>(
    deps,
    `SELECT c.amount AS commission_amount, c.status AS commission_status, c.available_at, c.user_id, c.invitee_id, c.base_amount, c.rate,
            i.refunded_amount, i.amount AS invoice_amount,
            (SELECT COALESCE(-sum(x.amount), 0) FROM commission_entries x WHERE x.invoice_id = c.invoice_id AND x.kind = 'clawback') AS clawed,
            r.id AS refund_id, r.refund_no
       FROM commission_entries c JOIN invoices i ON i.id = c.invoice_id
       LEFT JOIN LATERAL (
         SELECT id, refund_no FROM refunds WHERE invoice_id = c.invoice_id AND status = 'succeeded'
            AND NOT EXISTS (SELECT 1 FROM commission_entries y WHERE y.refund_id = refunds.id)
          ORDER BY id DESC LIMIT 1
       ) r ON true
      WHERE c.invoice_id = $1 AND c.kind = 'commission'`,
    [invoiceId],
    tx,
  );
  if (!state || state.refund_id === null) return;
  const due = clawbackTarget(state.commission_amount, state.refunded_amount, state.invoice_amount).minus(state.clawed);
  if (due.lte(0)) return;
  const pending = state.commission_status === 'pending';
  await sqlRows(
    deps,
    `WITH entry AS (
       INSERT INTO commission_entries (user_id, invitee_id, invoice_id, refund_id, kind, base_amount, rate, amount, status, available_at, released_at, idempotency_key)
       VALUES ($1, $2, $3, $4, 'clawback', $5, $6, $7, $8::varchar, $9, CASE WHEN $8::varchar = 'available' THEN now() END, $10)
       ON CONFLICT DO NOTHING RETURNING user_id, amount, status
     )
     UPDATE referral_accounts a
        SET pending_amount = a.pending_amount + CASE WHEN entry.status = 'pending' THEN entry.amount ELSE 0 END,
            available_amount = a.available_amount + CASE WHEN entry.status = 'available' THEN entry.amount ELSE 0 END,
            updated_at = now()
       FROM entry WHERE a.user_id = entry.user_id RETURNING a.user_id`,
    [
      state.user_id,
      state.invitee_id,
      invoiceId,
      state.refund_id,
      state.base_amount,
      state.rate,
      formatMoney(due.negated()),
      pending ? 'pending' : 'available',
      pending ? state.available_at : new Date(),
      `clawback:${state.refund_no}`,
    ],
    tx,
  );
}

/**
 * Moves every pending entry whose holding period is over to `available`, and the amounts with
 * them, in one statement: the `status = 'pending'` guard makes each entry move once however
 * often (or concurrently) this runs. Due by the database's clock, the one that wrote
 * `available_at` (a Node `Date` has only milliseconds and may fall just before it).
 */
export async function releaseDueCommissions(deps: DomainDeps) {
  const rows = await inTransaction(deps, (tx) =>
    sqlRows<{ users: number; entries: number; amount: string }>(
      deps,
      `WITH moved AS (
         UPDATE commission_entries SET status = 'available', released_at = now() WHERE status = 'pending' AND available_at <= now() RETURNING user_id, amount
       ), sums AS (
         SELECT user_id, sum(amount) AS amount, count(*) AS n FROM moved GROUP BY user_id
       ), applied AS (
         UPDATE referral_accounts a SET pending_amount = a.pending_amount - sums.amount, available_amount = a.available_amount + sums.amount, updated_at = now()
           FROM sums WHERE a.user_id = sums.user_id RETURNING a.user_id
       )
       SELECT (SELECT count(*) FROM applied)::int AS users, COALESCE((SELECT sum(n) FROM sums), 0)::int AS entries,
              COALESCE((SELECT sum(amount) FROM sums), 0)::text AS amount`,
      [],
      tx,
    ),
  );
  const row = rows[0];
  return { users: row?.users ?? 0, entries: row?.entries ?? 0, amount: formatMoney(row?.amount ?? 0) };
}

import type { DomainDeps } from '../../deps.js';
import { sqlRows } from '../../../db/sql.js';
import type { InvoiceType } from '../../../db/models/billing.js';
import { invoiceTypesWhere } from '../invoice-kinds.js';
import { MARKETING_INTEGRITY_RULES } from '../../marketing/integrity-rules.js';

export type IntegrityViolation = { rule: string; message: string; subject_type: string; subject_id: number; detail: string };

/** A rule's query takes the user (`$1`, null: everyone) and, if it has `types`, those invoice types (`$2`). */
type Rule = { rule: string; message: string; subject: string; sql: string; types?: InvoiceType[] };

/**
 * Every money invariant as a query that answers the rows breaking it. The database enforces
 * most of them already (migration 0004); this check proves the sums across tables too, and is
 * run by the tests after every scenario, by the bench, and by admins.
 */
const RULES: Rule[] = [
  {
    rule: 'balance_equals_ledger',
    message: '余额不等于账户流水之和',
    subject: 'user',
    sql: `SELECT a.user_id AS id, a.balance || ' <> ' || COALESCE(sum(t.amount), 0) AS detail
            FROM user_accounts a LEFT JOIN account_transactions t ON t.user_id = a.user_id
           WHERE ($1::int IS NULL OR a.user_id = $1)
           GROUP BY a.user_id, a.balance HAVING a.balance <> COALESCE(sum(t.amount), 0)`,
  },
  {
    rule: 'ledger_chain',
    message: '账户流水序号不连续或最后余额与账户余额不符',
    subject: 'user',
    sql: `SELECT a.user_id AS id, 'last_seq ' || a.last_seq || ', rows ' || count(t.id) || ', max ' || COALESCE(max(t.seq), 0) AS detail
            FROM user_accounts a LEFT JOIN account_transactions t ON t.user_id = a.user_id
           WHERE ($1::int IS NULL OR a.user_id = $1)
           GROUP BY a.user_id, a.last_seq, a.balance
          HAVING a.last_seq <> count(t.id) OR a.last_seq <> COALESCE(max(t.seq), 0)
              OR a.balance <> COALESCE((SELECT balance_after FROM account_transactions x WHERE x.user_id = a.user_id ORDER BY seq DESC LIMIT 1), 0)`,
  },
  {
    rule: 'no_negative_balance_without_admin_deduction',
    message: '余额为负但不是管理员扣款造成的',
    subject: 'account_transaction',
    sql: `SELECT id, type || ' ' || amount || ' -> ' || balance_after AS detail FROM account_transactions
           WHERE balance_after < 0 AND amount < 0 AND type <> 'admin_deduction' AND ($1::int IS NULL OR user_id = $1)`,
  },
  {
    rule: 'paid_invoice_parts',
    message: '已支付账单金额不等于余额部分与第三方部分之和',
    subject: 'invoice',
    sql: `SELECT id, amount || ' <> ' || balance_amount || ' + ' || third_party_amount AS detail FROM invoices
           WHERE status IN ('paid', 'partially_refunded', 'refunded') AND amount <> balance_amount + third_party_amount
             AND ($1::int IS NULL OR user_id = $1)`,
  },
  {
    rule: 'invoice_balance_part_in_ledger',
    message: '账单的余额部分与账户流水不符',
    subject: 'invoice',
    sql: `SELECT i.id, i.balance_amount || ' <> ' || COALESCE(-sum(t.amount), 0) AS detail
            FROM invoices i LEFT JOIN account_transactions t ON t.invoice_id = i.id AND t.type IN ('payment', 'payment_reversal')
           WHERE i.type = ANY($2::text[]) AND i.status <> 'cancelled' AND ($1::int IS NULL OR i.user_id = $1)
           GROUP BY i.id, i.balance_amount HAVING i.balance_amount <> COALESCE(-sum(t.amount), 0)`,
    types: invoiceTypesWhere('payableFromBalance'),
  },
  {
    rule: 'invoice_third_party_part_paid',
    message: '账单的第三方部分与已到账的支付单不符',
    subject: 'invoice',
    sql: `SELECT i.id, i.third_party_amount || ' <> ' || COALESCE(sum(p.amount), 0) AS detail
            FROM invoices i LEFT JOIN payments p ON p.invoice_id = i.id AND p.settlement = 'invoice'
           WHERE i.type = ANY($2::text[]) AND i.payment_channel IS DISTINCT FROM 'admin'
             AND ($1::int IS NULL OR i.user_id = $1)
           GROUP BY i.id, i.third_party_amount HAVING i.third_party_amount <> COALESCE(sum(p.amount), 0)`,
    types: invoiceTypesWhere('payable'),
  },
  {
    rule: 'refunds_within_paid',
    message: '退款金额超过已支付金额或与账单已退金额不符',
    subject: 'invoice',
    sql: `SELECT i.id, i.amount || ' / refunded ' || i.refunded_amount || ' / succeeded ' || COALESCE(sum(r.amount) FILTER (WHERE r.status = 'succeeded'), 0)
                 || ' / reserved ' || COALESCE(sum(r.amount) FILTER (WHERE r.status IN ('processing', 'succeeded')), 0) AS detail
            FROM invoices i LEFT JOIN refunds r ON r.invoice_id = i.id
           WHERE i.type <> 'refund' AND ($1::int IS NULL OR i.user_id = $1)
           GROUP BY i.id, i.amount, i.refunded_amount
          HAVING i.refunded_amount > i.amount
              OR i.refunded_amount <> COALESCE(sum(r.amount) FILTER (WHERE r.status = 'succeeded'), 0)
              OR COALESCE(sum(r.amount) FILTER (WHERE r.status IN ('processing', 'succeeded')), 0) > i.amount
              OR COALESCE(sum(r.third_party_part) FILTER (WHERE r.status IN ('processing', 'succeeded')), 0) > i.third_party_amount`,
  },
  {
    rule: 'refund_red_entry',
    message: '退款单与其红字账单不符',
    subject: 'refund',
    sql: `SELECT r.id, r.status || ' ' || r.amount || ' / red entry ' || COALESCE(i.amount::text, 'none') AS detail
            FROM refunds r LEFT JOIN invoices i ON i.id = r.refund_invoice_id
           WHERE ($1::int IS NULL OR r.user_id = $1)
             AND ((r.status = 'succeeded' AND (i.id IS NULL OR i.amount <> -r.amount OR i.origin_invoice_id <> r.invoice_id OR i.type <> 'refund'))
               OR (r.refund_method = 'balance' AND r.status <> 'succeeded'))`,
  },
  {
    rule: 'offsets_within_original',
    message: '冲减充值记录超过原记录的可冲减金额',
    subject: 'recharge_record',
    sql: `SELECT o.id, o.amount || ' / offset ' || o.offset_amount || ' / offsets ' || COALESCE(-sum(x.amount), 0) AS detail
            FROM recharge_records o LEFT JOIN recharge_records x ON x.origin_recharge_record_id = o.id
           WHERE o.direction = 'in' AND ($1::int IS NULL OR o.user_id = $1)
           GROUP BY o.id, o.amount, o.offset_amount
          HAVING COALESCE(-sum(x.amount), 0) > o.amount OR o.offset_amount <> COALESCE(-sum(x.amount), 0)`,
  },
  {
    rule: 'third_party_payment_recorded',
    message: '第三方到账没有对应的充值记录',
    subject: 'payment',
    sql: `SELECT p.id, p.amount || ' / record ' || COALESCE(rr.amount::text, 'none') AS detail
            FROM payments p LEFT JOIN recharge_records rr ON rr.payment_id = p.id AND rr.direction = 'in'
           WHERE p.status IN ('paid', 'partially_refunded', 'refunded') AND ($1::int IS NULL OR p.user_id = $1)
             AND (rr.id IS NULL OR rr.amount <> p.amount)`,
  },
  {
    rule: 'admin_recharge_recorded',
    message: '后台充值没有对应的充值记录',
    subject: 'account_transaction',
    sql: `SELECT t.id, t.amount::text AS detail FROM account_transactions t
            LEFT JOIN recharge_records rr ON rr.account_transaction_id = t.id
           WHERE t.type = 'admin_recharge' AND ($1::int IS NULL OR t.user_id = $1) AND (rr.id IS NULL OR rr.amount <> t.amount)`,
  },
  {
    rule: 'invoice_items_sum',
    message: '账单明细合计与账单金额不符',
    subject: 'invoice',
    sql: `SELECT i.id, i.amount || ' <> ' || sum(it.amount) AS detail FROM invoices i JOIN invoice_items it ON it.invoice_id = i.id
           WHERE ($1::int IS NULL OR i.user_id = $1) GROUP BY i.id, i.amount HAVING sum(it.amount) <> i.amount`,
  },
  {
    rule: 'paid_purchase_has_services',
    message: '已支付的新购账单缺少服务记录',
    subject: 'invoice',
    sql: `SELECT i.id, 'services ' || count(s.id) || ' / quantity ' || (i.payload->>'quantity') AS detail
            FROM invoices i LEFT JOIN services s ON s.invoice_id = i.id
           WHERE i.type = 'purchase' AND i.paid_at IS NOT NULL AND ($1::int IS NULL OR i.user_id = $1)
           GROUP BY i.id HAVING count(s.id) <> (i.payload->>'quantity')::int`,
  },
  // Coupons, commissions and withdrawals (issue 17).
  ...MARKETING_INTEGRITY_RULES,
];

/** Every violation of the money invariants (for one user, or all); an empty list means the books hold. */
export async function checkLedgerIntegrity(deps: DomainDeps, options: { userId?: number } = {}): Promise<IntegrityViolation[]> {
  const found: IntegrityViolation[] = [];
  for (const rule of RULES) {
    const rows = await sqlRows<{ id: number; detail: string }>(deps, rule.sql, rule.types ? [options.userId ?? null, rule.types] : [options.userId ?? null]);
    for (const row of rows) found.push({ rule: rule.rule, message: rule.message, subject_type: rule.subject, subject_id: row.id, detail: row.detail });
  }
  return found;
}

export const INTEGRITY_RULES = RULES.map((r) => ({ rule: r.rule, message: r.message }));

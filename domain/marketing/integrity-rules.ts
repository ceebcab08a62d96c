/**
 * The marketing invariants, as queries answering the rows that break them (same shape as the
 * money rules of `checkLedgerIntegrity`, which runs them with the rest; `$1` is an optional user).
 */
export const MARKETING_INTEGRITY_RULES = [
  {
    rule: 'referral_pending_equals_entries',
    message: '待结算佣金不等于待结算佣金记录之和',
    subject: 'user',
    sql: `SELECT a.user_id AS id, a.pending_amount || ' <> ' || COALESCE(sum(e.amount), 0) AS detail
            FROM referral_accounts a LEFT JOIN commission_entries e ON e.user_id = a.user_id AND e.status = 'pending'
           WHERE ($1::int IS NULL OR a.user_id = $1)
           GROUP BY a.user_id, a.pending_amount HAVING a.pending_amount <> COALESCE(sum(e.amount), 0)`,
  },
  {
    rule: 'referral_available_equals_entries_less_withdrawals',
    message: '可提现佣金不等于已解冻佣金减去未驳回的提现',
    subject: 'user',
    sql: `SELECT a.user_id AS id, a.available_amount || ' <> ' || x.released || ' - ' || x.withdrawn AS detail
            FROM referral_accounts a
            CROSS JOIN LATERAL (
              SELECT (SELECT COALESCE(sum(amount), 0) FROM commission_entries e WHERE e.user_id = a.user_id AND e.status = 'available') AS released,
                     (SELECT COALESCE(sum(amount), 0) FROM referral_withdrawals w WHERE w.user_id = a.user_id AND w.status <> 'rejected') AS withdrawn
            ) x
           WHERE ($1::int IS NULL OR a.user_id = $1) AND a.available_amount <> x.released - x.withdrawn`,
  },
  {
    rule: 'referral_frozen_and_withdrawn_equal_withdrawals',
    message: '冻结或已提现佣金与提现申请不符',
    subject: 'user',
    sql: `SELECT a.user_id AS id, 'frozen ' || a.frozen_amount || ' / ' || x.frozen || ', withdrawn ' || a.withdrawn_amount || ' / ' || x.paid AS detail
            FROM referral_accounts a
            CROSS JOIN LATERAL (
              SELECT COALESCE(sum(amount) FILTER (WHERE status IN ('pending', 'approved')), 0) AS frozen,
                     COALESCE(sum(amount) FILTER (WHERE status = 'paid'), 0) AS paid
                FROM referral_withdrawals w WHERE w.user_id = a.user_id
            ) x
           WHERE ($1::int IS NULL OR a.user_id = $1) AND (a.frozen_amount <> x.frozen OR a.withdrawn_amount <> x.paid)`,
  },
  {
    rule: 'available_negative_only_by_clawback',
    message: '可提现佣金为负但没有扣回记录',
    subject: 'user',
    sql: `SELECT a.user_id AS id, a.available_amount::text AS detail FROM referral_accounts a
           WHERE a.available_amount < 0 AND ($1::int IS NULL OR a.user_id = $1)
             AND NOT EXISTS (SELECT 1 FROM commission_entries e WHERE e.user_id = a.user_id AND e.kind = 'clawback' AND e.status = 'available')`,
  },
  {
    rule: 'commission_of_a_paid_invitee_invoice',
    message: '佣金记录与账单或邀请关系不符',
    subject: 'commission_entry',
    sql: `SELECT e.id, e.kind || ' ' || e.amount || ' invoice ' || e.invoice_id AS detail
            FROM commission_entries e JOIN invoices i ON i.id = e.invoice_id
            LEFT JOIN referral_accounts r ON r.user_id = e.invitee_id
           WHERE ($1::int IS NULL OR e.user_id = $1)
             AND (i.paid_at IS NULL OR i.user_id <> e.invitee_id OR r.referrer_id IS DISTINCT FROM e.user_id
               OR (e.kind = 'commission' AND (e.base_amount <> i.amount OR e.amount <> trunc(e.base_amount * e.rate / 100, 2)))
               OR (e.kind = 'clawback' AND NOT EXISTS (SELECT 1 FROM refunds f WHERE f.id = e.refund_id AND f.invoice_id = e.invoice_id AND f.status = 'succeeded')))`,
  },
  {
    rule: 'clawbacks_follow_refunds',
    message: '佣金扣回与账单已退款金额不符',
    subject: 'invoice',
    sql: `SELECT c.invoice_id AS id, 'commission ' || c.amount || ', clawed ' || COALESCE(-sum(x.amount), 0) || ', refunded ' || i.refunded_amount || '/' || i.amount AS detail
            FROM commission_entries c JOIN invoices i ON i.id = c.invoice_id
            LEFT JOIN commission_entries x ON x.invoice_id = c.invoice_id AND x.kind = 'clawback'
           WHERE c.kind = 'commission' AND ($1::int IS NULL OR c.user_id = $1)
           GROUP BY c.invoice_id, c.amount, i.refunded_amount, i.amount
          HAVING COALESCE(-sum(x.amount), 0) <> CASE WHEN i.refunded_amount >= i.amount THEN c.amount ELSE trunc(c.amount * i.refunded_amount / i.amount, 2) END`,
  },
  {
    rule: 'withdrawal_to_balance_booked_once',
    message: '提现到余额与账户流水不符',
    subject: 'referral_withdrawal',
    sql: `SELECT w.id, w.status || ' ' || w.amount || ' / transaction ' || COALESCE(t.amount::text, 'none') AS detail
            FROM referral_withdrawals w LEFT JOIN account_transactions t ON t.idempotency_key = 'withdrawal:' || w.withdrawal_no
           WHERE w.method = 'balance' AND ($1::int IS NULL OR w.user_id = $1)
             AND ((w.status = 'paid' AND (t.id IS NULL OR t.id <> w.account_transaction_id OR t.amount <> w.amount OR t.user_id <> w.user_id
                                          OR t.type <> 'commission_withdrawal'))
               OR (w.status <> 'paid' AND t.id IS NOT NULL))
          UNION ALL
          SELECT t.id, 'orphan commission_withdrawal ' || t.amount AS detail FROM account_transactions t
           WHERE t.type = 'commission_withdrawal' AND ($1::int IS NULL OR t.user_id = $1)
             AND NOT EXISTS (SELECT 1 FROM referral_withdrawals w WHERE w.account_transaction_id = t.id)`,
  },
  {
    rule: 'coupon_counts_equal_uses',
    message: '优惠券使用次数与使用记录不符',
    subject: 'coupon',
    sql: `SELECT c.id, 'used ' || c.used || ' / uses ' || (SELECT count(*) FROM coupon_uses u WHERE u.coupon_id = c.id AND u.status <> 'released') AS detail
            FROM coupons c
           WHERE c.used <> (SELECT count(*) FROM coupon_uses u WHERE u.coupon_id = c.id AND u.status <> 'released')
             AND ($1::int IS NULL OR EXISTS (SELECT 1 FROM coupon_uses u WHERE u.coupon_id = c.id AND u.user_id = $1))
          UNION ALL
          SELECT p.coupon_id, 'user ' || p.user_id || ' used ' || p.used AS detail FROM coupon_user_uses p
           WHERE ($1::int IS NULL OR p.user_id = $1)
             AND p.used <> (SELECT count(*) FROM coupon_uses u WHERE u.coupon_id = p.coupon_id AND u.user_id = p.user_id AND u.status <> 'released')`,
  },
  {
    rule: 'coupon_use_follows_invoice',
    message: '优惠券使用状态或优惠金额与账单不符',
    subject: 'coupon_use',
    sql: `SELECT u.id, u.status || ' / invoice ' || i.status || ' / discount ' || u.discount_amount || ' / line ' || COALESCE(-sum(it.amount), 0) AS detail
            FROM coupon_uses u JOIN invoices i ON i.id = u.invoice_id
            LEFT JOIN invoice_items it ON it.invoice_id = i.id AND it.item_key = 'discount.coupon'
           WHERE ($1::int IS NULL OR u.user_id = $1)
           GROUP BY u.id, u.status, u.discount_amount, i.status, i.user_id, u.user_id
          HAVING i.user_id <> u.user_id OR COALESCE(-sum(it.amount), 0) <> u.discount_amount
              OR NOT ((u.status = 'reserved' AND i.status = 'unpaid') OR (u.status = 'released' AND i.status = 'cancelled')
                      OR (u.status = 'final' AND i.status IN ('paid', 'partially_refunded', 'refunded')))`,
  },
];

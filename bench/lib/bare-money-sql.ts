/**
 * The bare SQL a balance payment and a payment notification need (the same statements, in the
 * same order and under the same locks as domain/billing and the plugin runtime), for the
 * baseline server: no framework, no auth, no signature check; Temporal only through the bare relay.
 */
/**
 * The outbox row a settlement writes (migration 0013), as a data-modifying CTE over `settled`, and
 * the relay's wake-up. The bare rows are never due for our relay ('infinity' where ours say
 * now()) and wake the bare relay's channel instead (bench/money/bare-relay.ts): each side's relay
 * performs only its own rows, and the statement costs the same.
 */
const BARE_FULFILMENT_INTENT = `INSERT INTO outbox (kind, key, payload, next_attempt_at)
       SELECT 'start_fulfilment', 'fulfil:' || id, jsonb_build_object('invoice_id', id), 'infinity'
         FROM settled WHERE type IN ('purchase', 'renew', 'traffic_package')
       ON CONFLICT (key) DO NOTHING RETURNING pg_notify('bare_outbox', '0')`;

export const BARE_PAY_BALANCE = {
  lockInvoice: `SELECT id, user_id, invoice_no, type, status, amount, payload,
       (SELECT p.payment_no FROM payments p WHERE p.invoice_id = invoices.id AND p.status = 'pending') AS pending_payment_no
     FROM invoices WHERE id = $1 FOR UPDATE`,
  lockAccount: 'SELECT user_id, balance, last_seq FROM user_accounts WHERE user_id = $1 FOR UPDATE',
  insertTransaction: `INSERT INTO account_transactions (user_id, seq, type, amount, balance_before, balance_after, invoice_id, idempotency_key, remark, operator_type, operator_id)
     VALUES ($1, $2, 'payment', $3, $4, $5, $6, $7, $8, 'user', $1) RETURNING id`,
  /** The settlement with its outbox row (the fulfilment promise) and the relay's wake-up, in one statement as in settleInvoice. */
  settleInvoice: `WITH settled AS (
       UPDATE invoices SET status = 'paid', balance_amount = $2, third_party_amount = 0, payment_channel = 'balance', paid_at = now(), updated_at = now()
        WHERE id = $1 AND status = 'unpaid' RETURNING id, type
     ), intent AS (${BARE_FULFILMENT_INTENT})
     SELECT id FROM settled`,
  payOrder: `UPDATE orders SET status = 'paid', paid_at = now(), updated_at = now() WHERE invoice_id = $1 AND status = 'pending' RETURNING id`,
  insertServices: `INSERT INTO services (user_id, product_id, order_id, invoice_id, seq, status, product_type, billing_period, config, price, product_name)
     SELECT $1, $2, $3, $4, n, 'pending', $5, $6, $7, $8, $10 FROM generate_series(1, $9::int) AS n RETURNING id`,
};

export const BARE_NOTIFY = {
  /** The plugin runtime: the plugin row, and one runtime log row per plugin action (spec: Plugin). */
  plugin: `SELECT id, domain, slug, key, status, manifest, config, secrets FROM plugins WHERE slug = 'qrpay' AND domain = 'payment'`,
  runtimeLog: `INSERT INTO plugin_runtime_logs (domain, plugin_id, plugin_slug, binding_id, actor_type, actor_id, action, status, duration_ms, message,
      trace_id, request_summary, response_summary, error_detail)
     VALUES ('payment', $1, 'qrpay', NULL, 'system', NULL, 'payment.verify_notify', 'success', 0, '支付通知校验通过', '', $2, '', '') RETURNING id`,
  seenPayment: `SELECT p.status, i.invoice_no FROM payments p JOIN invoices i ON i.id = p.invoice_id WHERE p.payment_no = $1`,
  lockPayment: `SELECT id, invoice_id, user_id, amount, balance_part, status FROM payments WHERE payment_no = $1 FOR UPDATE`,
  /** The payment paid, with its `signal_payment` outbox row (never due here, as above) in the same statement. */
  payPayment: `WITH paid AS (
       UPDATE payments SET status = 'paid', trade_no = $2, paid_at = now(), paid_source = 'notify', settlement = 'invoice', updated_at = now() WHERE id = $1 RETURNING payment_no
     ), signal AS (
       INSERT INTO outbox (kind, key, payload, next_attempt_at)
       SELECT 'signal_payment', 'payment-notified:' || payment_no, jsonb_build_object('invoice_no', $3::text, 'payment_no', payment_no), 'infinity' FROM paid
       ON CONFLICT (key) DO NOTHING RETURNING pg_notify('bare_outbox', '0')
     )
     SELECT payment_no FROM paid`,
  lockInvoice: BARE_PAY_BALANCE.lockInvoice,
  settleInvoice: `WITH settled AS (
       UPDATE invoices SET status = 'paid', balance_amount = $2, third_party_amount = $3, payment_channel = 'qrpay', paid_at = now(), updated_at = now()
        WHERE id = $1 AND status = 'unpaid' RETURNING id, type
     ), intent AS (${BARE_FULFILMENT_INTENT})
     SELECT id FROM settled`,
  payOrder: BARE_PAY_BALANCE.payOrder,
  insertServices: BARE_PAY_BALANCE.insertServices,
  insertRechargeRecord: `INSERT INTO recharge_records (user_id, order_id, invoice_id, payment_id, scene, direction, entry_type, amount, remark, operator_type)
     VALUES ($1, $2, $3, $4, 'new_purchase', 'in', 'third_party', $5, 'bare', 'system') RETURNING id`,
};

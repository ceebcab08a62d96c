import type pg from 'pg';
import { SEED_DAILY_MONEY_SQL, SEED_SERVICE_STATUS_SQL } from '../../db/migrations/0044-kept-dashboard-figures.js';
import { SEED_TICKET_STATUS_SQL } from '../../db/migrations/0051-kept-ticket-statuses.js';

/**
 * The data of a reseller after some years of business, built with set-based SQL (issue #35):
 * clients with their accounts, services over every product type and status with their purchase
 * invoices, orders and upstream bindings; invoices of every kind over the years with their items;
 * QR payments, ledger rows (a consistent chain per client), recharge records, refunds; upstream
 * costs; tickets with replies; service events; request-log, admin-audit and task-run rows;
 * member levels, coupons, security groups and commission withdrawals.
 *
 * Rows are written in the order of their time, as a platform writes them (ids and dates rise
 * together, so a range of days is a range of pages, as in production). Sizes scale from one number, `clients` (1× = 10,000 clients: 30,000 services, 300,000
 * invoices; 10× = 100,000 clients). It adds to what the database holds (the demo catalogue must
 * be seeded first: the services are of its products; a supplier is made when none exists), so rows get ids
 * above the current ones. The ledger is written with triggers off and every account's balance
 * set to its chain's end, so the ledger integrity check stays clean. One client, the returned
 * `heavyUserId`, holds `heavyInvoices` invoices (a client's lists at their largest).
 */
export type ScaleOptions = {
  clients: number;
  years?: number;
  /** Invoices of the one heavy client (10,000). */
  heavyInvoices?: number;
  log?: (message: string) => void;
};

export type ScaleSizes = {
  clients: number;
  services: number;
  invoices: number;
  ledger: number;
  tickets: number;
  requestLogs: number;
  auditRows: number;
  taskRuns: number;
  heavyUserId: number;
};

/** Per client; the sizes at 10,000 and 100,000 clients. */
export const PER_CLIENT = {
  services: 3,
  invoices: 30,
  ledger: 20,
  tickets: 2,
  repliesPerTicket: 3,
  requestLogs: 100,
  auditRows: 2,
  eventsPerService: 3,
} as const;

export const SCALE_PASSWORD_HASH = 'scale-not-a-hash';

async function maxId(client: pg.ClientBase, table: string): Promise<number> {
  const { rows } = await client.query<{ m: string | null }>(`SELECT max(id)::text AS m FROM ${table}`);
  return Number(rows[0]?.m ?? 0);
}

export async function generateBusiness(client: pg.ClientBase, options: ScaleOptions): Promise<ScaleSizes> {
  const log = options.log ?? (() => {});
  const C = Math.max(10, Math.round(options.clients));
  const years = options.years ?? 3;
  const heavyInvoices = options.heavyInvoices ?? 10_000;
  const S = C * PER_CLIENT.services;
  const I = C * PER_CLIENT.invoices;
  const L = C * PER_CLIENT.ledger;
  const T = C * PER_CLIENT.tickets;
  const R = C * PER_CLIENT.requestLogs;
  const A = C * PER_CLIENT.auditRows;
  const span = `${years * 365} days`;

  const products = (
    await client.query<{ id: number; product_type: string; name: string }>(
      `SELECT id, product_type, name FROM products WHERE deleted_at IS NULL ORDER BY id`,
    )
  ).rows;
  if (products.length === 0) throw new Error('generateBusiness: seed the demo catalogue first (no products)');
  let supplierId = (await client.query<{ id: number }>(`SELECT id FROM suppliers ORDER BY id LIMIT 1`)).rows[0]?.id;
  if (supplierId === undefined) {
    supplierId = (
      await client.query<{ id: number }>(
        `INSERT INTO suppliers (code, name, interface_type, base_url, account) VALUES ('scale-upstream', '规模数据上游', 'upstream_finance_api', 'http://127.0.0.1:9', 'scale') RETURNING id`,
      )
    ).rows[0]!.id;
  }
  let departmentId = (await client.query<{ id: number }>(`SELECT id FROM ticket_departments ORDER BY id LIMIT 1`)).rows[0]?.id;
  if (departmentId === undefined) {
    departmentId = (await client.query<{ id: number }>(`INSERT INTO ticket_departments (name) VALUES ('技术支持') RETURNING id`)).rows[0]!.id;
  }
  const adminId = (await client.query<{ id: number }>(`SELECT id FROM admins ORDER BY id LIMIT 1`)).rows[0]?.id ?? null;

  const base = {
    user: await maxId(client, 'users'),
    invoice: await maxId(client, 'invoices'),
    order: await maxId(client, 'orders'),
    service: await maxId(client, 'services'),
    payment: await maxId(client, 'payments'),
    ledger: await maxId(client, 'account_transactions'),
    ticket: await maxId(client, 'tickets'),
    refund: await maxId(client, 'refunds'),
    recharge: await maxId(client, 'recharge_records'),
  };
  const heavyUserId = base.user + 1;
  const timed = async (label: string, sql: string, params: unknown[] = []) => {
    const started = Date.now();
    const res = await client.query(sql, params);
    log(`  ${label}: ${res.rowCount ?? 0} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };

  await client.query('BEGIN');
  try {
    // Ledger, recharge and immutability triggers (and foreign keys) are off for the load: every
    // row is written consistent with them, and the balances are set from the chains below.
    await client.query(`SET LOCAL session_replication_role = replica`);
    await client.query(`CREATE TEMP TABLE scale_products ON COMMIT DROP AS
      SELECT row_number() OVER (ORDER BY id) - 1 AS k, id, product_type, name FROM products WHERE deleted_at IS NULL`);
    const P = products.length;

    await timed(
      'users',
      `INSERT INTO users (id, email, phone, nickname, password_hash, status, is_verified, created_at, updated_at)
       SELECT $1::int + g, 'scale-' || g || '@example.test',
              CASE WHEN g % 3 = 0 THEN '139' || lpad(g::text, 8, '0') END,
              (ARRAY['张','王','李','赵','陈','刘','杨','黄'])[1 + g % 8] || '客户' || g,
              $2, CASE WHEN g % 50 = 0 THEN 'disabled' ELSE 'active' END, CASE WHEN g % 4 = 0 THEN 1 ELSE 0 END,
              now() - (interval '${span}') * (1 - g::float8 / $3), now() - (interval '${span}') * (1 - g::float8 / $3)
       FROM generate_series(1, $3::int) g`,
      [base.user, SCALE_PASSWORD_HASH, C],
    );
    await timed(
      'accounts',
      `INSERT INTO user_accounts (user_id, balance, last_seq, created_at, updated_at)
       SELECT $1::int + g, 0, 0, now(), now() FROM generate_series(1, $2::int) g`,
      [base.user, C],
    );

    // Services with their purchase invoice and order: service k belongs to client 1 + k % C and
    // is of product k % P; its status follows k (60 % active, the rest over every other state).
    await client.query(`CREATE TEMP TABLE scale_services ON COMMIT DROP AS
      SELECT g AS k, $1::int + 1 + (g % $2::int) AS user_id, p.id AS product_id, p.product_type, p.name AS product_name,
             (ARRAY['active','active','active','active','active','active','suspended','terminated','terminated','cancelled',
                    'pending','provisioning','failed','active','active','terminated','active','active','suspended','active'])[1 + g % 20] AS status,
             now() - (interval '${span}') * (1 - g::float8 / $3::int) + interval '1 hour' * random() AS created_at,
             (ARRAY['monthly','quarterly','annually'])[1 + g % 3] AS billing_period,
             round((30 + (g % 17) * 12.5)::numeric, 2) AS price
      FROM generate_series(1, $3::int) g JOIN scale_products p ON p.k = g % ${P}`, [base.user, C, S]);
    await timed(
      'purchase invoices',
      `INSERT INTO invoices (id, invoice_no, user_id, type, status, subject, amount, balance_amount, third_party_amount,
                             payment_channel, due_at, paid_at, dispatched_at, cancelled_at, operator_type, created_at, updated_at)
       SELECT $1::int + k, 'INV-SC-' || ($1::int + k), user_id, 'purchase',
              CASE WHEN status = 'pending' THEN 'unpaid' WHEN status = 'cancelled' THEN 'cancelled' ELSE 'paid' END,
              '购买 ' || product_name, price,
              CASE WHEN status IN ('pending','cancelled') THEN 0 WHEN k % 2 = 0 THEN price ELSE 0 END,
              CASE WHEN status IN ('pending','cancelled') THEN 0 WHEN k % 2 = 0 THEN 0 ELSE price END,
              CASE WHEN status IN ('pending','cancelled') THEN NULL WHEN k % 2 = 0 THEN 'balance' ELSE 'qrpay' END,
              created_at + interval '1 day',
              CASE WHEN status IN ('pending','cancelled') THEN NULL ELSE created_at + interval '5 minutes' END,
              CASE WHEN status IN ('pending','cancelled') THEN NULL ELSE created_at + interval '6 minutes' END,
              CASE WHEN status = 'cancelled' THEN created_at + interval '1 day' END,
              'user', created_at, created_at
       FROM scale_services`,
      [base.invoice],
    );
    await timed(
      'purchase items',
      `INSERT INTO invoice_items (invoice_id, item_key, description, unit_amount, quantity, amount, created_at)
       SELECT $1::int + k, 'product', product_name || ' (' || billing_period || ')', price, 1, price, created_at FROM scale_services`,
      [base.invoice],
    );
    await timed(
      'orders',
      `INSERT INTO orders (id, order_no, user_id, invoice_id, type, status, product_id, amount, billing_period, paid_at, completed_at, created_at, updated_at)
       SELECT $1::int + k, 'ORD-SC-' || ($1::int + k), user_id, $2::int + k, 'new_purchase',
              CASE WHEN status = 'pending' THEN 'pending' WHEN status = 'cancelled' THEN 'cancelled'
                   WHEN status IN ('provisioning','failed') THEN 'paid' ELSE 'completed' END,
              product_id, price, billing_period,
              CASE WHEN status IN ('pending','cancelled') THEN NULL ELSE created_at + interval '5 minutes' END,
              CASE WHEN status IN ('pending','cancelled','provisioning','failed') THEN NULL ELSE created_at + interval '8 minutes' END,
              created_at, created_at
       FROM scale_services`,
      [base.order, base.invoice],
    );
    await client.query(`SELECT setval('orders_id_seq', (SELECT max(id) FROM orders))`);
    await timed(
      'services',
      `INSERT INTO services (id, user_id, product_id, order_id, invoice_id, seq, status, product_type, billing_period, price,
                             next_due_at, product_name, provider_key, plugin_key, supplier_id, hostname, ip, os, username,
                             upstream_status, provisioning_stage, stage_changed_at, auto_renew, activated_at, suspended_at,
                             terminated_at, cancelled_at, suspend_reason, failure_code, failure_reason, created_at, updated_at)
       SELECT $1::int + k, user_id, product_id, $2::int + k, $3::int + k, 1, status, product_type, billing_period, price,
              CASE WHEN status IN ('active','suspended') THEN now() + (k % 90 - 20) * interval '1 day' END,
              product_name, 'upstream', 'upstream', $4::int, 'host-' || k || '.scale.test',
              CASE WHEN status IN ('active','suspended') THEN '10.' || (k / 65536) % 256 || '.' || (k / 256) % 256 || '.' || k % 256 ELSE '' END,
              'Debian 12', 'root', CASE WHEN status IN ('active','suspended') THEN 'running' ELSE '' END,
              CASE WHEN status = 'provisioning' THEN 'create_host' WHEN status = 'failed' THEN 'pay_upstream' ELSE '' END,
              created_at + interval '8 minutes', k % 3 = 0,
              CASE WHEN status IN ('active','suspended','terminated') THEN created_at + interval '8 minutes' END,
              CASE WHEN status = 'suspended' THEN now() - (k % 30) * interval '1 day' END,
              CASE WHEN status = 'terminated' THEN created_at + interval '200 days' END,
              CASE WHEN status = 'cancelled' THEN created_at + interval '1 day' END,
              CASE WHEN status = 'suspended' THEN 'overdue' END,
              CASE WHEN status = 'failed' THEN 'upstream_refused' END,
              CASE WHEN status = 'failed' THEN '上游拒绝开通' END,
              created_at, created_at + interval '8 minutes'
       FROM scale_services`,
      [base.service, base.order, base.invoice, supplierId],
    );
    await timed(
      'service bindings',
      `INSERT INTO service_upstream_bindings (service_id, product_id, supplier_id, provider_key, upstream_product_id,
                                              upstream_order_id, upstream_invoice_id, upstream_host_id, bound_at,
                                              upstream_amount, upstream_paid_at, created_at, updated_at)
       SELECT $1::int + k, product_id, $2::int, 'upstream', 'up-' || product_id, 1000000 + k, 1000000 + k,
              CASE WHEN status IN ('active','suspended','terminated') THEN 1000000 + k END,
              CASE WHEN status IN ('active','suspended','terminated') THEN created_at + interval '8 minutes' END,
              CASE WHEN status IN ('active','suspended','terminated') THEN round(price * 0.7, 2) END,
              CASE WHEN status IN ('active','suspended','terminated') THEN created_at + interval '7 minutes' END,
              created_at, created_at
       FROM scale_services WHERE status NOT IN ('pending','cancelled')`,
      [base.service, supplierId],
    );
    await timed(
      'service events',
      `INSERT INTO service_events (service_id, kind, stage, status, message, operator_type, created_at)
       SELECT $1::int + s.k, 'provision', st.stage, 'succeeded', '阶段完成', 'system', s.created_at + st.n * interval '1 minute'
       FROM scale_services s CROSS JOIN (VALUES (1, 'prepare'), (2, 'pay_upstream'), (3, 'activate')) AS st(n, stage)
       WHERE s.status NOT IN ('pending','cancelled')`,
      [base.service],
    );

    // The other invoices: renewals, recharges, traffic packages, upgrades, deductions and
    // verifications over the years; invoice j belongs to client 1 + j % C, except the heavy
    // client's block; statuses by j (80 % paid, then unpaid, cancelled, refunded).
    const others = I - S;
    await client.query(`CREATE TEMP TABLE scale_invoices ON COMMIT DROP AS
      SELECT j,
             CASE WHEN j <= $2::int THEN $1::int + 1 ELSE $1::int + 1 + (j % $3::int) END AS user_id,
             (ARRAY['renew','renew','renew','renew','renew','renew','recharge','recharge','traffic_package','upgrade','deduction','verification'])[1 + j % 12] AS type,
             (ARRAY['paid','paid','paid','paid','paid','paid','paid','paid','paid','paid','paid','paid','paid','paid','paid','paid',
                    'unpaid','cancelled','cancelled','partially_refunded'])[1 + (j / 12) % 20] AS status,
             round((5 + (j % 23) * 9.5)::numeric, 2) AS amount,
             now() - (interval '${span}') * (1 - j::float8 / $4::int) + interval '10 minutes' * random() AS created_at,
             $5::int + 1 + ((j * 7) % $6::int) AS service_id
      FROM generate_series(1, $4::int) j`, [base.user, heavyInvoices, C, others, base.service, S]);
    await client.query(`UPDATE scale_invoices SET service_id = NULL WHERE type NOT IN ('renew','traffic_package','upgrade')`);
    // One unpaid renewal, traffic package or upgrade per service (unique indexes): the others are cancelled.
    await client.query(`UPDATE scale_invoices SET status = 'cancelled'
      WHERE j IN (SELECT j FROM (SELECT j, row_number() OVER (PARTITION BY service_id, type ORDER BY j DESC) AS n
                                 FROM scale_invoices WHERE status = 'unpaid' AND service_id IS NOT NULL) x WHERE n > 1)`);
    await timed(
      'invoices',
      `INSERT INTO invoices (id, invoice_no, user_id, type, status, subject, amount, balance_amount, third_party_amount, refunded_amount,
                             payment_channel, service_id, due_at, paid_at, dispatched_at, cancelled_at, operator_type, created_at, updated_at)
       SELECT $1::int + $2::int + j, 'INV-SC-' || ($1::int + $2::int + j), i.user_id, type, status,
              (CASE type WHEN 'renew' THEN '续费' WHEN 'recharge' THEN '余额充值' WHEN 'traffic_package' THEN '流量包'
                         WHEN 'upgrade' THEN '升降级' WHEN 'deduction' THEN '扣费' ELSE '实名认证' END) || ' #' || j,
              amount,
              CASE WHEN status IN ('unpaid','cancelled') THEN 0 WHEN type <> 'recharge' AND j % 2 = 0 THEN amount ELSE 0 END,
              CASE WHEN status IN ('unpaid','cancelled') THEN 0 WHEN type <> 'recharge' AND j % 2 = 0 THEN 0 ELSE amount END,
              CASE WHEN status = 'partially_refunded' THEN round(amount / 2, 2) ELSE 0 END,
              CASE WHEN status IN ('unpaid','cancelled') THEN NULL WHEN type <> 'recharge' AND j % 2 = 0 THEN 'balance' ELSE 'qrpay' END,
              i.service_id,
              i.created_at + interval '3 days',
              CASE WHEN status IN ('unpaid','cancelled') THEN NULL ELSE i.created_at + interval '10 minutes' END,
              CASE WHEN status IN ('unpaid','cancelled') OR type NOT IN ('renew','traffic_package','upgrade') THEN NULL ELSE i.created_at + interval '11 minutes' END,
              CASE WHEN status = 'cancelled' THEN i.created_at + interval '3 days' END,
              'user', i.created_at, i.created_at
       FROM scale_invoices i`,
      [base.invoice, S],
    );
    await timed(
      'invoice items',
      `INSERT INTO invoice_items (invoice_id, item_key, description, unit_amount, quantity, amount, created_at)
       SELECT $1::int + $2::int + j, type, type || ' #' || j, amount, 1, amount, created_at FROM scale_invoices`,
      [base.invoice, S],
    );
    await timed(
      'orders of service invoices',
      `INSERT INTO orders (order_no, user_id, invoice_id, type, status, service_id, amount, paid_at, completed_at, created_at, updated_at)
       SELECT 'ORD-SC-R' || j, user_id, $1::int + $2::int + j,
              CASE type WHEN 'renew' THEN 'renewal' ELSE type END,
              CASE WHEN status = 'unpaid' THEN 'pending' WHEN status = 'cancelled' THEN 'cancelled' ELSE 'completed' END,
              service_id, amount,
              CASE WHEN status IN ('unpaid','cancelled') THEN NULL ELSE created_at + interval '10 minutes' END,
              CASE WHEN status IN ('unpaid','cancelled') THEN NULL ELSE created_at + interval '12 minutes' END,
              created_at, created_at
       FROM scale_invoices WHERE type IN ('renew','traffic_package','upgrade')`,
      [base.invoice, S],
    );
    await timed(
      'qr payments',
      `INSERT INTO payments (payment_no, invoice_id, user_id, gateway, trade_no, amount, status, settlement, paid_source,
                             expires_at, paid_at, refunded_amount, created_at, updated_at)
       SELECT 'PAY-SC-' || id, id, user_id, 'qrpay', 'T' || id, third_party_amount,
              CASE WHEN status = 'partially_refunded' THEN 'partially_refunded' ELSE 'paid' END,
              CASE WHEN type = 'recharge' THEN 'balance_credit' ELSE 'invoice' END, 'notify',
              created_at + interval '15 minutes', paid_at,
              CASE WHEN status = 'partially_refunded' THEN refunded_amount ELSE 0 END, created_at, paid_at
       FROM invoices WHERE id > $1::int AND third_party_amount > 0 ORDER BY paid_at`,
      [base.invoice],
    );
    await timed(
      'recharge records',
      `INSERT INTO recharge_records (record_no, user_id, invoice_id, payment_id, scene, direction, entry_type, amount, operator_type, created_at, updated_at)
       SELECT 'RC-SC-' || p.id, p.user_id, p.invoice_id, p.id, 'user_recharge', 'in', 'third_party', p.amount, 'user', p.paid_at, p.paid_at
       FROM payments p JOIN invoices i ON i.id = p.invoice_id WHERE i.id > $1::int AND i.type = 'recharge' ORDER BY p.paid_at`,
      [base.invoice],
    );
    await timed(
      'refunds',
      `INSERT INTO refunds (refund_no, user_id, invoice_id, payment_id, amount, balance_part, third_party_part, refund_method, status,
                            reason, out_request_no, operator_type, operator_id, created_at, updated_at)
       SELECT 'RF-SC-' || i.id, i.user_id, i.id, p.id, i.refunded_amount, 0, i.refunded_amount, 'original', 'failed',
              '客户申请退款', 'OR-SC-' || i.id, 'admin', $2::int, i.paid_at + interval '2 days', i.paid_at + interval '2 days'
       FROM invoices i JOIN payments p ON p.invoice_id = i.id WHERE i.id > $1::int AND i.status = 'partially_refunded'`,
      [base.invoice, adminId],
    );

    // The ledger: per client a chain of recharges (+100) and payments (−10…−99), so the balance
    // never goes negative; balance_before/after from the running sum, the account set to its end.
    const perClient = Math.max(2, Math.floor(L / C));
    await timed(
      'ledger',
      `INSERT INTO account_transactions (user_id, seq, type, amount, balance_before, balance_after, idempotency_key, remark,
                                         operator_type, created_at)
       SELECT user_id, seq, type, amount, running - amount, running, 'scale-' || user_id || '-' || seq,
              CASE WHEN type = 'recharge' THEN '余额充值' ELSE '账单支付' END, 'user', at
       FROM (SELECT user_id, seq, type, amount, sum(amount) OVER (PARTITION BY user_id ORDER BY seq) AS running,
                    u.created_at + (now() - u.created_at) * (seq::float8 / ($3::int + 1)) AS at
             FROM (SELECT $1::int + g AS user_id, s AS seq,
                          CASE WHEN s % 2 = 1 THEN 'recharge' ELSE 'payment' END AS type,
                          CASE WHEN s % 2 = 1 THEN 100.00 ELSE -(10 + (s * 7 + g) % 90)::numeric END AS amount
                   FROM generate_series(1, $2::int) g CROSS JOIN generate_series(1, $3::int) s) x
             JOIN users u ON u.id = x.user_id) y
       ORDER BY at`,
      [base.user, C, perClient],
    );
    await timed(
      'balances',
      `UPDATE user_accounts a SET balance = t.balance_after, last_seq = t.seq
       FROM (SELECT DISTINCT ON (user_id) user_id, seq, balance_after FROM account_transactions
             WHERE user_id > $1::int ORDER BY user_id, seq DESC) t
       WHERE a.user_id = t.user_id`,
      [base.user],
    );

    await timed(
      'upstream costs',
      `INSERT INTO upstream_costs (service_id, invoice_id, supplier_id, product_id, kind, upstream_invoice_id, amount, via, recorded_at)
       SELECT * FROM (
         SELECT s.id, s.invoice_id, $3::int, s.product_id, 'provision', 1000000 + (s.id - $4::int), round(s.price * 0.7, 2), 'paid', s.activated_at
           FROM services s WHERE s.id > $4::int AND s.activated_at IS NOT NULL
         UNION ALL
         SELECT i.service_id, i.id, $3::int, s.product_id, CASE i.type WHEN 'renew' THEN 'renew' ELSE i.type END,
                5000000 + i.id, round(i.amount * 0.65, 2), 'paid', i.paid_at
           FROM invoices i JOIN services s ON s.id = i.service_id
          WHERE i.id > $1::int + $2::int AND i.paid_at IS NOT NULL AND i.type IN ('renew','traffic_package','upgrade')) c
       ORDER BY 9`,
      [base.invoice, S, supplierId, base.service],
    );
    await timed(
      'tickets',
      `INSERT INTO tickets (id, user_id, department_id, service_id, subject, priority, status, last_reply_at, last_reply_by,
                            closed_at, closed_by, created_at, updated_at)
       SELECT $1::int + g, $2::int + 1 + (g % $3::int), $4::int,
              CASE WHEN g % 2 = 0 THEN $5::int + 1 + (g % $6::int) END,
              (ARRAY['无法连接服务器','续费问题','申请退款','重装系统失败','带宽不足'])[1 + g % 5] || ' #' || g,
              (ARRAY['low','normal','normal','high','urgent'])[1 + g % 5],
              CASE WHEN g % 10 < 7 THEN 'closed' WHEN g % 10 < 8 THEN 'open' WHEN g % 10 < 9 THEN 'answered' ELSE 'customer_reply' END,
              at + interval '2 hours', CASE WHEN g % 10 = 8 THEN 'staff' ELSE 'user' END,
              CASE WHEN g % 10 < 7 THEN at + interval '3 days' END,
              CASE WHEN g % 10 < 7 THEN (ARRAY['user','staff','auto'])[1 + g % 3] END,
              at, at + interval '2 hours'
       FROM (SELECT g, now() - (interval '${span}') * (1 - g::float8 / $7::int) AS at FROM generate_series(1, $7::int) g) x`,
      [base.ticket, base.user, C, departmentId, base.service, S, T],
    );
    await timed(
      'ticket replies',
      `INSERT INTO ticket_replies (ticket_id, author_type, user_id, admin_id, body, created_at)
       SELECT t.id, CASE WHEN r % 2 = 0 AND $2::int IS NOT NULL THEN 'staff' ELSE 'user' END,
              CASE WHEN r % 2 = 0 AND $2::int IS NOT NULL THEN NULL ELSE t.user_id END,
              CASE WHEN r % 2 = 0 AND $2::int IS NOT NULL THEN $2::int END,
              '您好，关于工单 ' || t.id || ' 的第 ' || r || ' 条回复。', t.created_at + r * interval '30 minutes'
       FROM tickets t CROSS JOIN generate_series(1, ${PER_CLIENT.repliesPerTicket}) r WHERE t.id > $1::int`,
      [base.ticket, adminId],
    );

    await timed(
      'request log',
      `INSERT INTO api_request_logs (method, route, status, code, duration_ms, user_id, admin_id, ip, request_id, created_at)
       SELECT (ARRAY['GET','GET','GET','POST','PUT','DELETE'])[1 + g % 6],
              (ARRAY['/api/v2/client/services','/api/v2/client/invoices','/api/v2/admin/users','/api/v2/admin/invoices',
                     '/api/v2/client/services/{id}/console','/api/v2/admin/dashboard','/api/v2/client/tickets'])[1 + g % 7],
              CASE WHEN g % 50 = 0 THEN 404 WHEN g % 97 = 0 THEN 500 ELSE 200 END,
              CASE WHEN g % 50 = 0 THEN 40400 WHEN g % 97 = 0 THEN 50000 ELSE 0 END,
              5 + g % 200, CASE WHEN g % 3 <> 0 THEN $1::int + 1 + (g % $2::int) END,
              CASE WHEN g % 3 = 0 THEN $3::int END,
              '203.0.113.' || g % 250, 'req-' || g,
              now() - interval '90 days' * (1 - g::float8 / $4::int)
       FROM generate_series(1, $4::int) g`,
      [base.user, C, adminId, R],
    );
    await timed(
      'task runs',
      `INSERT INTO task_runs (task_key, trigger, workflow_id, run_id, status, summary, scheduled_at, started_at, finished_at, task_title, slot_at)
       SELECT task_key, 'schedule', 'scale-' || task_key || '-' || g, 'run-' || g, 'succeeded', '{}'::jsonb,
              slot, slot, slot + interval '2 seconds', task_key, slot
       FROM (SELECT g, (ARRAY['services.renewal_reminders','invoices.cancel_stale','services.host_sync'])[1 + g % 3] AS task_key,
                    date_trunc('hour', now()) - (g / 3) * interval '15 minutes' - interval '1 hour' AS slot
             FROM generate_series(0, $1::int - 1) g) x`,
      [Math.min(3 * 4 * 24 * 365, Math.round(3.5 * C))],
    );
    // The marketing and console tables an admin lists (so those lists are not measured empty):
    // a few member levels, a coupon per 5 clients, a security group per 2, a commission
    // withdrawal per 20 in every status, over the years.
    await timed(
      'member levels',
      `INSERT INTO member_levels (name, discount_percent, commission_rate, min_spend, sort_order)
       SELECT 'VIP' || g, g, g, g * 1000, g FROM generate_series(1, 8) g ON CONFLICT (name) DO NOTHING`,
    );
    await timed(
      'coupons',
      `INSERT INTO coupons (code, name, kind, value, min_amount, starts_at, ends_at, total_uses, per_user_limit, used, status, is_public,
                            owner_user_id, created_at, updated_at)
       SELECT 'SCALE-' || ($1::int + g), '优惠券 ' || g, CASE WHEN g % 2 = 0 THEN 'fixed' ELSE 'percent' END,
              CASE WHEN g % 2 = 0 THEN 5 + g % 50 ELSE 5 + g % 30 END, (g % 4) * 50, at, at + interval '90 days',
              CASE WHEN g % 3 = 0 THEN 100 END, CASE WHEN g % 2 = 1 THEN 1 END, CASE WHEN g % 3 = 0 THEN g % 100 ELSE 0 END,
              CASE WHEN g % 7 = 0 THEN 'disabled' ELSE 'active' END, g % 5 = 0,
              CASE WHEN g % 4 = 0 THEN $1::int + 1 + (g * 5) % $2::int END, at, at
       FROM (SELECT g, now() - (interval '${span}') * (1 - g::float8 / ($2::int / 5)) AS at FROM generate_series(1, $2::int / 5) g) x`,
      [base.user, C],
    );
    await timed(
      'security groups',
      `INSERT INTO security_groups (user_id, name, description, created_at, updated_at)
       SELECT $1::int + 2 * g, '默认安全组', '开放 22、80、443', at, at
       FROM (SELECT g, now() - (interval '${span}') * (1 - g::float8 / ($2::int / 2)) AS at FROM generate_series(1, $2::int / 2) g) x`,
      [base.user, C],
    );
    await timed(
      'withdrawals',
      `INSERT INTO referral_withdrawals (user_id, amount, method, account_name, account_no, status, reject_reason, reviewed_by, reviewed_at,
                                         paid_at, created_at, updated_at)
       SELECT $1::int + 1 + (g * 20) % $2::int, 50 + g % 500, CASE WHEN g % 2 = 0 THEN 'balance' ELSE 'external' END,
              CASE WHEN g % 2 = 0 THEN '' ELSE '客户' || g END, CASE WHEN g % 2 = 0 THEN '' ELSE '6222' || lpad(g::text, 12, '0') END,
              (ARRAY['paid','paid','rejected','approved','pending'])[1 + g % 5], CASE WHEN g % 5 = 2 THEN '信息不符' ELSE '' END,
              CASE WHEN g % 5 <> 4 THEN $3::int END, CASE WHEN g % 5 <> 4 THEN at + interval '1 day' END,
              CASE WHEN g % 5 < 2 THEN at + interval '2 days' END, at, at
       FROM (SELECT g, now() - (interval '${span}') * (1 - g::float8 / ($2::int / 20)) AS at FROM generate_series(1, $2::int / 20) g) x`,
      [base.user, C, adminId],
    );
    // The dashboard's kept figures (migrations 0044, 0051) are written by triggers, off for the
    // load: made again from the rows, as the migrations seed them.
    await timed(
      'kept figures',
      `DELETE FROM service_status_deltas; DELETE FROM daily_money_deltas; DELETE FROM ticket_status_deltas; ${SEED_SERVICE_STATUS_SQL}; ${SEED_DAILY_MONEY_SQL}; ${SEED_TICKET_STATUS_SQL}`,
    );
    for (const [table, seq] of [
      ['users', 'users_id_seq'], ['invoices', 'invoices_id_seq'], ['orders', 'orders_id_seq'], ['services', 'services_id_seq'],
      ['tickets', 'tickets_id_seq'],
    ] as const) {
      await client.query(`SELECT setval('${seq}', (SELECT max(id) FROM ${table}))`);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
  // Audit rows go through the chain trigger (a chain written around it would not verify), in
  // transactions of 2,000: within one transaction every row's update of the chain head stays
  // visible to the next, which made one transaction of the whole set quadratic.
  {
    const started = Date.now();
    for (let from = 1; from <= A; from += 2_000) {
      await client.query(
        `INSERT INTO admin_audit_logs (source, admin_id, admin_name, method, route, status, code, target_type, target_id, action,
                                       after, request_id, ip, created_at)
         SELECT 'request', $1::int, 'admin', 'PUT', '/api/v2/admin/users/{id}', 200, 0, 'user', ($2::int + 1 + g % $3::int)::text,
                'user.update', jsonb_build_object('status', 'active'), 'scale-audit-' || g, '198.51.100.7',
                now() - interval '365 days' * (1 - g::float8 / $4::int)
         FROM generate_series($5::int, least($5::int + 1999, $4::int)) g ORDER BY g`,
        [adminId, base.user, C, A, from],
      );
    }
    log(`  admin audit: ${A} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const vacuumStarted = Date.now();
  await client.query('VACUUM ANALYZE');
  log(`  vacuum analyze: ${((Date.now() - vacuumStarted) / 1000).toFixed(1)} s`);
  const taskRuns = Math.min(3 * 4 * 24 * 365, Math.round(3.5 * C));
  return { clients: C, services: S, invoices: I, ledger: C * perClientOf(L, C), tickets: T, requestLogs: R, auditRows: A, taskRuns, heavyUserId };
}

function perClientOf(L: number, C: number): number {
  return Math.max(2, Math.floor(L / C));
}

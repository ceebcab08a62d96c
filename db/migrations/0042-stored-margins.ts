import type { Migration } from './types.js';

/**
 * Margins kept as they are written (issue #35, docs/economics.md "How the figures are kept"): the
 * margin reads recomputed every money line of the years of business on each request. Now:
 *
 * - `service_margin_lines(ids)`: THE rule (the only copy): the money lines of those services
 *   (`service_id, at, revenue, refunds, cost, unknown`), as `domain/economics/margins.ts` had it.
 * - `service_margins` (one row per service: its figures and the group it is counted in) and
 *   `service_margin_days` (per service per Asia/Shanghai day) hold each service's figures.
 * - `service_margin_totals` (product × supplier × status: figures, services, services whose cost
 *   is unknown) and `margin_day_totals` (day × product × supplier) are append-only DELTA rows:
 *   a write inserts its difference, never updates a shared row (two writers updating the same
 *   total rows in different orders deadlocked); reads sum them; the task
 *   `economics.compact_margin_totals` folds them into one row per key.
 * - `refresh_service_margins(ids)` recomputes those services from the rule, under their
 *   `service_margins` rows locked in id order, and writes the differences.
 * - Statement-level AFTER triggers (transition tables: one refresh per statement, with the
 *   distinct services it touched, so a bulk insert is not quadratic) on every table the rule
 *   reads, in the transaction of the write: a read right after a commit includes it.
 *
 * The invoice kinds are `invoiceTypesWhere('fulfilment', 'provisioning' | 'service_order')` of
 * `domain/billing/invoice-kinds.ts` (db/ may not import it; the lists must equal it): a new kind
 * needs a migration that replaces the function.
 *
 * One transaction: the triggers are created first (their locks hold writes off the tables) and
 * the backfill reads everything once, set-based. New tables and functions only: nothing old
 * reads or loses anything; the release before keeps writing, and its writes fire the triggers.
 */
export const MARGIN_PURCHASE_TYPES = ['purchase'] as const;
export const MARGIN_ORDER_TYPES = ['renew', 'traffic_package', 'upgrade'] as const;

const list = (types: readonly string[]) => `'{${types.join(',')}}'::text[]`;
const PURCHASE = list(MARGIN_PURCHASE_TYPES);
const ORDER = list(MARGIN_ORDER_TYPES);
const PAID = "('paid', 'partially_refunded', 'refunded')";
/** `amount` shared among `n` rows, the first (`k` = 1) taking the cents left over. */
const share = (amount: string, n: string, k: string) => `(trunc(${amount} / ${n}, 2) + CASE WHEN ${k} = 1 THEN ${amount} - trunc(${amount} / ${n}, 2) * ${n} ELSE 0 END)`;

const LINES_FUNCTION = `
CREATE OR REPLACE FUNCTION service_margin_lines(ids int[])
RETURNS TABLE (service_id int, at timestamptz, revenue numeric, refunds numeric, cost numeric, unknown boolean)
LANGUAGE sql STABLE AS $fn$
  WITH scope AS (SELECT DISTINCT x.id FROM unnest(ids) AS x(id)),
  scoped AS (SELECT s.id, s.invoice_id FROM services s JOIN scope ON scope.id = s.id),
  purchase_shares AS (
    SELECT s.id AS service_id, i.id AS invoice_id, i.amount, i.paid_at,
           count(*) OVER (PARTITION BY i.id) AS n, row_number() OVER (PARTITION BY i.id ORDER BY s.seq, s.id) AS k
      FROM invoices i JOIN services s ON s.invoice_id = i.id
     WHERE i.type = ANY(${PURCHASE}) AND i.status IN ${PAID}
       AND i.id IN (SELECT scoped.invoice_id FROM scoped)),
  sales AS (
    SELECT ps.service_id, ps.invoice_id, ps.paid_at AS at, ${share('ps.amount', 'ps.n', 'ps.k')} AS revenue,
           (b.pay_attempted_at IS NOT NULL OR b.upstream_paid_at IS NOT NULL)
             AND NOT EXISTS (SELECT 1 FROM upstream_costs c WHERE c.service_id = ps.service_id AND c.invoice_id = ps.invoice_id AND c.amount IS NOT NULL) AS unknown
      FROM purchase_shares ps LEFT JOIN service_upstream_bindings b ON b.service_id = ps.service_id
    UNION ALL
    SELECT i.service_id, i.id, i.paid_at, i.amount,
           EXISTS (SELECT 1 FROM service_orders so WHERE so.invoice_id = i.id AND so.upstream_paid_at IS NOT NULL)
             AND NOT EXISTS (SELECT 1 FROM upstream_costs c WHERE c.service_id = i.service_id AND c.invoice_id = i.id AND c.amount IS NOT NULL)
      FROM invoices i JOIN scoped ON scoped.id = i.service_id
     WHERE i.type = ANY(${ORDER}) AND i.status IN ${PAID}),
  refund_base AS (
    SELECT r.id, r.invoice_id, r.amount, r.refunded_at,
           CASE WHEN i.type = ANY(${ORDER}) THEN i.service_id
                ELSE (SELECT s2.id FROM services s2 WHERE s2.invoice_id = r.invoice_id
                         AND s2.id::text = (regexp_match(r.trace_id, '^provision-cancel:(\\d{1,9})$'))[1]) END AS one_service
      FROM refunds r JOIN invoices i ON i.id = r.invoice_id
     WHERE r.status = 'succeeded' AND (i.type = ANY(${PURCHASE}) OR i.type = ANY(${ORDER}))
       AND r.invoice_id IN (SELECT scoped.invoice_id FROM scoped
                            UNION ALL SELECT i2.id FROM invoices i2 JOIN scoped ON scoped.id = i2.service_id)),
  backs AS (
    SELECT rb.one_service AS service_id, rb.refunded_at AS at, rb.amount AS refunds FROM refund_base rb WHERE rb.one_service IS NOT NULL
    UNION ALL
    SELECT x.service_id, x.at, ${share('x.amount', 'x.n', 'x.k')}
      FROM (SELECT s.id AS service_id, rb.refunded_at AS at, rb.amount,
                   count(*) OVER (PARTITION BY rb.id) AS n, row_number() OVER (PARTITION BY rb.id ORDER BY s.seq, s.id) AS k
              FROM refund_base rb JOIN services s ON s.invoice_id = rb.invoice_id WHERE rb.one_service IS NULL) x),
  all_lines AS (
    SELECT sales.service_id, sales.at, sales.revenue, 0::numeric AS refunds, 0::numeric AS cost, sales.unknown FROM sales
    UNION ALL
    SELECT backs.service_id, backs.at, 0, backs.refunds, 0, false FROM backs
    UNION ALL
    SELECT c.service_id, c.recorded_at, 0, 0, COALESCE(c.amount, 0), c.amount IS NULL
      FROM upstream_costs c JOIN scope ON scope.id = c.service_id)
  SELECT l.service_id, l.at, l.revenue, l.refunds, l.cost, l.unknown
    FROM all_lines l WHERE l.service_id IN (SELECT scope.id FROM scope)
$fn$;`;

const TABLES = `
CREATE TABLE service_margins (
  service_id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL,
  product_id INTEGER NOT NULL,
  supplier_id INTEGER,
  status VARCHAR(32) NOT NULL,
  revenue NUMERIC(16,2) NOT NULL DEFAULT 0,
  refunds NUMERIC(16,2) NOT NULL DEFAULT 0,
  cost NUMERIC(16,2) NOT NULL DEFAULT 0,
  unknown BOOLEAN NOT NULL DEFAULT false
);
CREATE INDEX service_margins_user_idx ON service_margins (user_id);

CREATE TABLE service_margin_days (
  service_id INTEGER NOT NULL,
  day DATE NOT NULL,
  revenue NUMERIC(16,2) NOT NULL,
  refunds NUMERIC(16,2) NOT NULL,
  cost NUMERIC(16,2) NOT NULL,
  unknown BOOLEAN NOT NULL,
  lines INTEGER NOT NULL,
  PRIMARY KEY (service_id, day)
);

CREATE TABLE service_margin_totals (
  id BIGSERIAL PRIMARY KEY,
  product_id INTEGER NOT NULL,
  supplier_id INTEGER,
  status VARCHAR(32) NOT NULL,
  revenue NUMERIC(16,2) NOT NULL,
  refunds NUMERIC(16,2) NOT NULL,
  cost NUMERIC(16,2) NOT NULL,
  services INTEGER NOT NULL,
  services_cost_unknown INTEGER NOT NULL
);

CREATE TABLE margin_day_totals (
  id BIGSERIAL PRIMARY KEY,
  day DATE NOT NULL,
  product_id INTEGER NOT NULL,
  supplier_id INTEGER,
  revenue NUMERIC(16,2) NOT NULL,
  refunds NUMERIC(16,2) NOT NULL,
  cost NUMERIC(16,2) NOT NULL,
  unknown_days INTEGER NOT NULL,
  lines INTEGER NOT NULL
);
CREATE INDEX margin_day_totals_day_idx ON margin_day_totals (day);`;

/** Up to this many services a refresh reuses its session's generic plan; more are planned for their number. */
const FEW = 200;

const REFRESH_FUNCTION = `
/** \`ids\`: distinct, sorted, not empty (refresh_service_margins). */
CREATE OR REPLACE FUNCTION margins_refresh_apply(ids int[]) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE written bigint;
BEGIN
  -- Each service's stored row, locked in id order: two writers of one service take turns, and the
  -- second recomputes from what the first committed (each statement below reads afresh).
  PERFORM 1 FROM service_margins m WHERE m.service_id IN (SELECT unnest(ids)) ORDER BY m.service_id FOR UPDATE;
  -- Every join below is to a table by its key or a FULL JOIN (hashed or merged, never a nested
  -- loop over a CTE): the work follows the services refreshed, also for thousands of them.
  WITH
  nd AS (
    SELECT l.service_id, (l.at AT TIME ZONE 'Asia/Shanghai')::date AS day, s.product_id, s.supplier_id,
           sum(l.revenue)::numeric(16,2) AS revenue, sum(l.refunds)::numeric(16,2) AS refunds, sum(l.cost)::numeric(16,2) AS cost,
           bool_or(l.unknown) AS unknown, count(*)::int AS lines
      FROM service_margin_lines(ids) l JOIN services s ON s.id = l.service_id GROUP BY 1, 2, 3, 4),
  od AS (
    SELECT d.service_id, d.day, m.product_id, m.supplier_id, d.revenue, d.refunds, d.cost, d.unknown, d.lines
      FROM service_margin_days d JOIN service_margins m ON m.service_id = d.service_id
     WHERE d.service_id IN (SELECT unnest(ids))),
  dj AS (
    SELECT nd.service_id AS n_service, nd.day AS n_day, nd.revenue AS n_revenue, nd.refunds AS n_refunds, nd.cost AS n_cost, nd.unknown AS n_unknown, nd.lines AS n_lines,
           od.service_id AS o_service, od.day AS o_day,
           (nd.revenue, nd.refunds, nd.cost, nd.unknown, nd.lines) IS NOT DISTINCT FROM (od.revenue, od.refunds, od.cost, od.unknown, od.lines) AS same
      FROM nd FULL JOIN od ON od.service_id = nd.service_id AND od.day = nd.day),
  cur AS (SELECT s.id AS service_id, s.user_id, s.product_id, s.supplier_id, s.status FROM services s WHERE s.id IN (SELECT unnest(ids))),
  per AS (
    SELECT nd.service_id, sum(nd.revenue) AS revenue, sum(nd.refunds) AS refunds, sum(nd.cost) AS cost, bool_or(nd.unknown) AS unknown
      FROM nd GROUP BY 1),
  nm AS (
    SELECT cur.service_id, cur.user_id, cur.product_id, cur.supplier_id, cur.status,
           COALESCE(per.revenue, 0) AS revenue, COALESCE(per.refunds, 0) AS refunds, COALESCE(per.cost, 0) AS cost, COALESCE(per.unknown, false) AS unknown
      FROM cur FULL JOIN per ON per.service_id = cur.service_id WHERE cur.service_id IS NOT NULL),
  om AS (SELECT m.* FROM service_margins m WHERE m.service_id IN (SELECT unnest(ids))),
  mj AS (
    SELECT nm.service_id AS n_service, om.service_id AS o_service, nm.user_id, nm.product_id, nm.supplier_id, nm.status, nm.revenue, nm.refunds, nm.cost, nm.unknown,
           (nm.user_id, nm.product_id, nm.supplier_id, nm.status, nm.revenue, nm.refunds, nm.cost, nm.unknown)
             IS NOT DISTINCT FROM (om.user_id, om.product_id, om.supplier_id, om.status, om.revenue, om.refunds, om.cost, om.unknown) AS same
      FROM nm FULL JOIN om ON om.service_id = nm.service_id),
  day_delta AS (
    SELECT x.day, x.product_id, x.supplier_id, sum(x.revenue) AS revenue, sum(x.refunds) AS refunds, sum(x.cost) AS cost,
           sum(x.unknown)::int AS unknown_days, sum(x.lines)::int AS lines
      FROM (SELECT nd.day, nd.product_id, nd.supplier_id, nd.revenue, nd.refunds, nd.cost, nd.unknown::int AS unknown, nd.lines FROM nd
            UNION ALL
            SELECT od.day, od.product_id, od.supplier_id, -od.revenue, -od.refunds, -od.cost, -(od.unknown::int), -od.lines FROM od) x
     GROUP BY 1, 2, 3
    HAVING sum(x.revenue) <> 0 OR sum(x.refunds) <> 0 OR sum(x.cost) <> 0 OR sum(x.unknown) <> 0 OR sum(x.lines) <> 0),
  total_delta AS (
    SELECT x.product_id, x.supplier_id, x.status, sum(x.revenue) AS revenue, sum(x.refunds) AS refunds, sum(x.cost) AS cost,
           sum(x.services)::int AS services, sum(x.unknown)::int AS services_cost_unknown
      FROM (SELECT nm.product_id, nm.supplier_id, nm.status, nm.revenue, nm.refunds, nm.cost, 1 AS services, nm.unknown::int AS unknown FROM nm
            UNION ALL
            SELECT om.product_id, om.supplier_id, om.status, -om.revenue, -om.refunds, -om.cost, -1, -(om.unknown::int) FROM om) x
     GROUP BY 1, 2, 3
    HAVING sum(x.revenue) <> 0 OR sum(x.refunds) <> 0 OR sum(x.cost) <> 0 OR sum(x.services) <> 0 OR sum(x.unknown) <> 0),
  day_rows AS (INSERT INTO margin_day_totals (day, product_id, supplier_id, revenue, refunds, cost, unknown_days, lines)
               SELECT * FROM day_delta RETURNING 1),
  total_rows AS (INSERT INTO service_margin_totals (product_id, supplier_id, status, revenue, refunds, cost, services, services_cost_unknown)
                 SELECT * FROM total_delta RETURNING 1),
  days_gone AS (DELETE FROM service_margin_days d USING dj
                 WHERE dj.n_service IS NULL AND d.service_id = dj.o_service AND d.day = dj.o_day RETURNING 1),
  days_set AS (INSERT INTO service_margin_days (service_id, day, revenue, refunds, cost, unknown, lines)
               SELECT dj.n_service, dj.n_day, dj.n_revenue, dj.n_refunds, dj.n_cost, dj.n_unknown, dj.n_lines FROM dj
                WHERE dj.n_service IS NOT NULL AND NOT (dj.o_service IS NOT NULL AND dj.same)
               ON CONFLICT (service_id, day) DO UPDATE SET revenue = EXCLUDED.revenue, refunds = EXCLUDED.refunds, cost = EXCLUDED.cost,
                 unknown = EXCLUDED.unknown, lines = EXCLUDED.lines
               RETURNING 1),
  services_gone AS (DELETE FROM service_margins m USING mj WHERE mj.n_service IS NULL AND m.service_id = mj.o_service RETURNING 1),
  services_set AS (INSERT INTO service_margins (service_id, user_id, product_id, supplier_id, status, revenue, refunds, cost, unknown)
                   SELECT mj.n_service, mj.user_id, mj.product_id, mj.supplier_id, mj.status, mj.revenue, mj.refunds, mj.cost, mj.unknown FROM mj
                    WHERE mj.n_service IS NOT NULL AND NOT (mj.o_service IS NOT NULL AND mj.same)
                   ON CONFLICT (service_id) DO UPDATE SET user_id = EXCLUDED.user_id, product_id = EXCLUDED.product_id, supplier_id = EXCLUDED.supplier_id,
                     status = EXCLUDED.status, revenue = EXCLUDED.revenue, refunds = EXCLUDED.refunds, cost = EXCLUDED.cost, unknown = EXCLUDED.unknown
                   RETURNING 1)
  SELECT (SELECT count(*) FROM day_rows) + (SELECT count(*) FROM total_rows) + (SELECT count(*) FROM days_gone)
       + (SELECT count(*) FROM days_set) + (SELECT count(*) FROM services_gone) + (SELECT count(*) FROM services_set) INTO written;
END
$fn$;

CREATE OR REPLACE FUNCTION refresh_service_margins(ids int[]) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  -- Sets joined, never \`= ANY(ids)\` (a generic plan tests each row against the whole array).
  ids := ARRAY(SELECT DISTINCT x FROM unnest(ids) AS x WHERE x IS NOT NULL ORDER BY 1);
  IF cardinality(ids) = 0 THEN RETURN; END IF;
  -- The statement of margins_refresh_apply inlines the rule: a large query whose planning costs
  -- 20-40 ms, thirty times its own run for one service. The few services of an ordinary write
  -- reuse one plan per session; a bulk statement's thousands are planned for their number (a plan
  -- made for a few ran a 3,000-service update in 9 s instead of 0.3 s).
  -- The work is the services and their purchase siblings (a share reads all of its invoice's):
  -- a few services of an invoice of thousands are planned for their number too. (A generic plan
  -- is also made with the statistics of its first use, until the next ANALYZE: tables that grew
  -- a thousandfold in between ran a 12-service refresh in minutes.)
  IF cardinality(ids) <= ${FEW}
     AND (SELECT count(*) FROM (SELECT 1 FROM services s
                                 WHERE s.invoice_id IN (SELECT s2.invoice_id FROM services s2 WHERE s2.id IN (SELECT unnest(ids)))
                                 LIMIT ${FEW} + 1) AS siblings) <= ${FEW}
  THEN PERFORM margins_refresh_few(ids); ELSE PERFORM margins_refresh_many(ids); END IF;
END
$fn$;

CREATE OR REPLACE FUNCTION margins_refresh_few(ids int[]) RETURNS void LANGUAGE sql
SET plan_cache_mode = force_generic_plan AS $fn$ SELECT margins_refresh_apply(ids) $fn$;

CREATE OR REPLACE FUNCTION margins_refresh_many(ids int[]) RETURNS void LANGUAGE sql
SET plan_cache_mode = force_custom_plan AS $fn$ SELECT margins_refresh_apply(ids) $fn$;`;

const NONE = 'SELECT NULL::int AS id, NULL::int AS invoice_id, NULL::int AS seq WHERE false';

/**
 * The other services of the purchase invoices that services joined (`entering`: their rows now)
 * or left (`leaving`: their rows before), whose share may have changed: a statement yielding
 * their ids. By the rule (\`share\`), a share is trunc(x / n, 2) of the invoice's amount and of
 * each shared refund, the first service by (seq, id) also taking the cents left over. So when no
 * such x changes trunc(x / n, 2) with the count before and after, only the first before and the
 * first after change (besides the services that moved, refreshed by the caller); otherwise every
 * service of the invoice. (An invoice of 100,000 services that gains one is then refreshed in two
 * rows, not 100,000: 22 s.) Only invoices with shares to change: paid and not free, or refunded.
 */
function siblings(entering: string, leaving: string): string {
  return `(
    WITH ent AS (${entering}), lev AS (${leaving}),
    inv AS (
      SELECT i.id, i.amount FROM invoices i
       WHERE i.id IN (SELECT ent.invoice_id FROM ent UNION SELECT lev.invoice_id FROM lev)
         AND ((i.type = ANY(${PURCHASE}) AND i.status IN ${PAID} AND i.amount <> 0)
              OR EXISTS (SELECT 1 FROM refunds r WHERE r.invoice_id = i.id AND r.status = 'succeeded'))),
    now_members AS (SELECT s.id, s.invoice_id, s.seq FROM services s JOIN inv ON s.invoice_id = inv.id),
    before_members AS (
      SELECT m.id, m.invoice_id, m.seq FROM now_members m WHERE NOT EXISTS (SELECT 1 FROM ent WHERE ent.id = m.id)
      UNION ALL SELECT lev.id, lev.invoice_id, lev.seq FROM lev JOIN inv ON inv.id = lev.invoice_id),
    counts AS (
      SELECT inv.id, inv.amount, (SELECT count(*) FROM now_members m WHERE m.invoice_id = inv.id) AS n_now,
             (SELECT count(*) FROM before_members b WHERE b.invoice_id = inv.id) AS n_before
        FROM inv),
    reshared AS (
      SELECT c.id FROM counts c
       WHERE c.n_now > 0 AND c.n_before > 0
         AND EXISTS (SELECT 1 FROM (SELECT c.amount AS x UNION ALL SELECT r.amount FROM refunds r WHERE r.invoice_id = c.id AND r.status = 'succeeded') xs
                      WHERE trunc(xs.x / c.n_before, 2) <> trunc(xs.x / c.n_now, 2)))
    SELECT m.id FROM now_members m WHERE m.invoice_id IN (SELECT reshared.id FROM reshared)
    UNION SELECT (SELECT m.id FROM now_members m WHERE m.invoice_id = c.id ORDER BY m.seq, m.id LIMIT 1) FROM counts c
    UNION SELECT (SELECT b.id FROM before_members b WHERE b.invoice_id = c.id ORDER BY b.seq, b.id LIMIT 1) FROM counts c)`;
}

/**
 * One trigger function per source table: the services each statement touched, from its
 * transition tables, refreshed once. Rows whose change the rule cannot see are skipped.
 */
export function marginTriggerFunctions(collect: (query: string) => string): string {
  return `
CREATE OR REPLACE FUNCTION margins_after_invoices() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE ids int[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    ${collect(`
      WITH changed AS (SELECT n.id, n.service_id FROM new_rows n
                        WHERE n.status IN ${PAID} AND (n.type = ANY(${PURCHASE}) OR n.type = ANY(${ORDER})))
      SELECT s.id FROM services s JOIN changed c ON s.invoice_id = c.id
      UNION SELECT c.service_id FROM changed c WHERE c.service_id IS NOT NULL`)}
  ELSE
    ${collect(`
      WITH changed AS (
        SELECT n.id, n.service_id AS new_service, o.service_id AS old_service FROM new_rows n JOIN old_rows o ON o.id = n.id
         WHERE (n.type = ANY(${PURCHASE}) OR n.type = ANY(${ORDER}) OR o.type = ANY(${PURCHASE}) OR o.type = ANY(${ORDER}))
           AND (n.status IN ${PAID} OR o.status IN ${PAID})
           AND (n.type, n.status, n.paid_at, n.amount, n.service_id) IS DISTINCT FROM (o.type, o.status, o.paid_at, o.amount, o.service_id))
      SELECT s.id FROM services s JOIN changed c ON s.invoice_id = c.id
      UNION SELECT c.new_service FROM changed c WHERE c.new_service IS NOT NULL
      UNION SELECT c.old_service FROM changed c WHERE c.old_service IS NOT NULL`)}
  END IF;
  IF cardinality(ids) > 0 THEN PERFORM refresh_service_margins(ids); END IF;
  RETURN NULL;
END
$fn$;

CREATE OR REPLACE FUNCTION margins_after_refunds() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE ids int[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    ${collect(`
      WITH changed AS (SELECT DISTINCT n.invoice_id FROM new_rows n WHERE n.status = 'succeeded')
      SELECT s.id FROM services s JOIN changed c ON s.invoice_id = c.invoice_id
      UNION SELECT i.service_id FROM invoices i JOIN changed c ON i.id = c.invoice_id WHERE i.service_id IS NOT NULL`)}
  ELSE
    ${collect(`
      WITH changed AS (
        SELECT n.invoice_id FROM new_rows n JOIN old_rows o ON o.id = n.id
         WHERE (n.status = 'succeeded' OR o.status = 'succeeded')
           AND (n.status, n.amount, n.refunded_at, n.trace_id, n.invoice_id) IS DISTINCT FROM (o.status, o.amount, o.refunded_at, o.trace_id, o.invoice_id)
        UNION SELECT o.invoice_id FROM new_rows n JOIN old_rows o ON o.id = n.id
         WHERE o.status = 'succeeded' AND n.invoice_id IS DISTINCT FROM o.invoice_id)
      SELECT s.id FROM services s JOIN changed c ON s.invoice_id = c.invoice_id
      UNION SELECT i.service_id FROM invoices i JOIN changed c ON i.id = c.invoice_id WHERE i.service_id IS NOT NULL`)}
  END IF;
  IF cardinality(ids) > 0 THEN PERFORM refresh_service_margins(ids); END IF;
  RETURN NULL;
END
$fn$;

CREATE OR REPLACE FUNCTION margins_after_upstream_costs() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE ids int[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    ${collect(`SELECT DISTINCT n.service_id FROM new_rows n`)}
  ELSIF TG_OP = 'DELETE' THEN
    ${collect(`SELECT DISTINCT o.service_id FROM old_rows o`)}
  ELSE
    ${collect(`
      SELECT n.service_id FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE (n.service_id, n.invoice_id, n.amount, n.recorded_at) IS DISTINCT FROM (o.service_id, o.invoice_id, o.amount, o.recorded_at)
      UNION SELECT o.service_id FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE (n.service_id, n.invoice_id, n.amount, n.recorded_at) IS DISTINCT FROM (o.service_id, o.invoice_id, o.amount, o.recorded_at)`)}
  END IF;
  IF cardinality(ids) > 0 THEN PERFORM refresh_service_margins(ids); END IF;
  RETURN NULL;
END
$fn$;

CREATE OR REPLACE FUNCTION margins_after_bindings() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE ids int[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    ${collect(`SELECT n.service_id FROM new_rows n WHERE n.pay_attempted_at IS NOT NULL OR n.upstream_paid_at IS NOT NULL`)}
  ELSIF TG_OP = 'DELETE' THEN
    ${collect(`SELECT o.service_id FROM old_rows o WHERE o.pay_attempted_at IS NOT NULL OR o.upstream_paid_at IS NOT NULL`)}
  ELSE
    -- Only whether a pay was attempted or recorded matters, not when.
    ${collect(`
      SELECT n.service_id FROM new_rows n JOIN old_rows o ON o.service_id = n.service_id
       WHERE (n.pay_attempted_at IS NOT NULL OR n.upstream_paid_at IS NOT NULL) <> (o.pay_attempted_at IS NOT NULL OR o.upstream_paid_at IS NOT NULL)`)}
  END IF;
  IF cardinality(ids) > 0 THEN PERFORM refresh_service_margins(ids); END IF;
  RETURN NULL;
END
$fn$;

CREATE OR REPLACE FUNCTION margins_after_service_orders() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE ids int[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    ${collect(`SELECT i.service_id FROM new_rows n JOIN invoices i ON i.id = n.invoice_id WHERE n.upstream_paid_at IS NOT NULL AND i.service_id IS NOT NULL`)}
  ELSIF TG_OP = 'DELETE' THEN
    ${collect(`SELECT i.service_id FROM old_rows o JOIN invoices i ON i.id = o.invoice_id WHERE o.upstream_paid_at IS NOT NULL AND i.service_id IS NOT NULL`)}
  ELSE
    ${collect(`
      WITH changed AS (
        SELECT n.invoice_id AS new_invoice, o.invoice_id AS old_invoice FROM new_rows n JOIN old_rows o ON o.id = n.id
         WHERE (n.upstream_paid_at IS NOT NULL) <> (o.upstream_paid_at IS NOT NULL)
            OR (n.invoice_id IS DISTINCT FROM o.invoice_id AND (n.upstream_paid_at IS NOT NULL OR o.upstream_paid_at IS NOT NULL)))
      SELECT i.service_id FROM invoices i JOIN changed c ON i.id = c.new_invoice OR i.id = c.old_invoice WHERE i.service_id IS NOT NULL`)}
  END IF;
  IF cardinality(ids) > 0 THEN PERFORM refresh_service_margins(ids); END IF;
  RETURN NULL;
END
$fn$;

CREATE OR REPLACE FUNCTION margins_after_services() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE ids int[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    ${collect(`SELECT n.id FROM new_rows n UNION ${siblings('SELECT n.id, n.invoice_id, n.seq FROM new_rows n', NONE)}`)}
  ELSIF TG_OP = 'DELETE' THEN
    ${collect(`SELECT o.id FROM old_rows o UNION ${siblings(NONE, 'SELECT o.id, o.invoice_id, o.seq FROM old_rows o')}`)}
  ELSE
    ${collect(`
      WITH moved AS (
        SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
         WHERE (n.user_id, n.product_id, n.supplier_id, n.status, n.invoice_id, n.seq) IS DISTINCT FROM (o.user_id, o.product_id, o.supplier_id, o.status, o.invoice_id, o.seq))
      SELECT m.id FROM moved m
      UNION ${siblings(
        'SELECT n.id, n.invoice_id, n.seq FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.invoice_id, n.seq) IS DISTINCT FROM (o.invoice_id, o.seq)',
        'SELECT o.id, o.invoice_id, o.seq FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE (n.invoice_id, n.seq) IS DISTINCT FROM (o.invoice_id, o.seq)',
      )}`)}
  END IF;
  IF cardinality(ids) > 0 THEN PERFORM refresh_service_margins(ids); END IF;
  RETURN NULL;
END
$fn$;`;
}

/** Each statement's ids, by a statement planned once per session (0047 plans it for each call). */
export const collectCached = (query: string): string => `ids := ARRAY(${query});`;

const TRIGGER_FUNCTIONS = marginTriggerFunctions(collectCached);

const SOURCES: Array<{ table: string; fn: string; events: string[] }> = [
  { table: 'invoices', fn: 'margins_after_invoices', events: ['INSERT', 'UPDATE'] },
  { table: 'refunds', fn: 'margins_after_refunds', events: ['INSERT', 'UPDATE'] },
  { table: 'upstream_costs', fn: 'margins_after_upstream_costs', events: ['INSERT', 'UPDATE', 'DELETE'] },
  { table: 'service_upstream_bindings', fn: 'margins_after_bindings', events: ['INSERT', 'UPDATE', 'DELETE'] },
  { table: 'service_orders', fn: 'margins_after_service_orders', events: ['INSERT', 'UPDATE', 'DELETE'] },
  { table: 'services', fn: 'margins_after_services', events: ['INSERT', 'UPDATE', 'DELETE'] },
];

/** Transition tables: PG 15 takes them on one event per trigger, without a column list. */
function triggerSql(table: string, fn: string, event: string): string {
  const referencing = event === 'INSERT' ? 'NEW TABLE AS new_rows' : event === 'DELETE' ? 'OLD TABLE AS old_rows' : 'NEW TABLE AS new_rows OLD TABLE AS old_rows';
  return `CREATE TRIGGER ${table}_margins_${event.toLowerCase()} AFTER ${event} ON ${table} REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}();`;
}

/** Every service's rows, then the totals grouped from them: set-based, one read of everything. */
const BACKFILL = `
INSERT INTO service_margin_days (service_id, day, revenue, refunds, cost, unknown, lines)
  SELECT l.service_id, (l.at AT TIME ZONE 'Asia/Shanghai')::date, sum(l.revenue), sum(l.refunds), sum(l.cost), bool_or(l.unknown), count(*)
    FROM service_margin_lines(ARRAY(SELECT id FROM services)) l GROUP BY 1, 2;
INSERT INTO service_margins (service_id, user_id, product_id, supplier_id, status, revenue, refunds, cost, unknown)
  SELECT s.id, s.user_id, s.product_id, s.supplier_id, s.status,
         COALESCE(d.revenue, 0), COALESCE(d.refunds, 0), COALESCE(d.cost, 0), COALESCE(d.unknown, false)
    FROM services s LEFT JOIN (SELECT service_id, sum(revenue) AS revenue, sum(refunds) AS refunds, sum(cost) AS cost, bool_or(unknown) AS unknown
                                 FROM service_margin_days GROUP BY 1) d ON d.service_id = s.id;
INSERT INTO service_margin_totals (product_id, supplier_id, status, revenue, refunds, cost, services, services_cost_unknown)
  SELECT product_id, supplier_id, status, sum(revenue), sum(refunds), sum(cost), count(*), count(*) FILTER (WHERE unknown)
    FROM service_margins GROUP BY 1, 2, 3;
INSERT INTO margin_day_totals (day, product_id, supplier_id, revenue, refunds, cost, unknown_days, lines)
  SELECT d.day, m.product_id, m.supplier_id, sum(d.revenue), sum(d.refunds), sum(d.cost), count(*) FILTER (WHERE d.unknown), sum(d.lines)
    FROM service_margin_days d JOIN service_margins m ON m.service_id = d.service_id GROUP BY 1, 2, 3;
ANALYZE service_margins; ANALYZE service_margin_days; ANALYZE service_margin_totals; ANALYZE margin_day_totals;`;

export const migration0042StoredMargins: Migration = {
  name: '0042-stored-margins',
  async up({ context: sequelize }) {
    // One query string: PostgreSQL runs it as one transaction.
    await sequelize.query(
      [
        TABLES,
        LINES_FUNCTION,
        REFRESH_FUNCTION,
        TRIGGER_FUNCTIONS,
        ...SOURCES.flatMap(({ table, fn, events }) => events.map((event) => triggerSql(table, fn, event))),
        BACKFILL,
      ].join('\n'),
    );
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      ${SOURCES.flatMap(({ table, events }) => events.map((event) => `DROP TRIGGER IF EXISTS ${table}_margins_${event.toLowerCase()} ON ${table};`)).join('\n')}
      DROP FUNCTION IF EXISTS margins_after_invoices(), margins_after_refunds(), margins_after_upstream_costs(), margins_after_bindings(),
        margins_after_service_orders(), margins_after_services(), refresh_service_margins(int[]), margins_refresh_few(int[]),
        margins_refresh_many(int[]), margins_refresh_apply(int[]), service_margin_lines(int[]);
      DROP TABLE IF EXISTS service_margins, service_margin_days, service_margin_totals, margin_day_totals;
    `);
  },
};

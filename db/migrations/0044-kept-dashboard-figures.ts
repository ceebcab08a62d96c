import { buildIndexConcurrently } from './concurrent-index.js';
import { statusDeltasSeedSql, statusDeltasSql, type StatusDeltas } from './status-deltas.js';
import type { Migration } from './types.js';

/**
 * Dashboard figures kept in the transaction of the write (issue #35): at ten times a third
 * year's data, counting the active services (about 200,000 index entries) and summing the paid
 * invoices of a range of days (a year: about a million) read as many rows as they count, so the
 * dashboard's time grew with the table. Each figure is now a set of append-only delta rows that
 * a trigger inserts in the writer's own transaction, summed at read and folded by a task
 * (`dashboard.fold_figures`, domain/dashboard/kept.ts):
 *
 * - `service_status_deltas` (status, delta): +1 for the status a service enters, −1 for the one
 *   it leaves (insert, update of `status`, delete). The active services are the sum of the
 *   `active` rows.
 * - `daily_money_deltas` (day, source, type, amount, n): per Asia/Shanghai day, the paid
 *   invoices (`source = 'invoice'`, by invoice type; counted while the status is paid, partially
 *   refunded or refunded, on the day of `paid_at`) and the succeeded refunds (`source = 'refund'`,
 *   type '', on the day of `refunded_at`). A change of what a row contributes inserts the old
 *   contribution negated and the new one. Which invoice types count as sales or recharge stays
 *   in the code (the table of invoice kinds), which filters the types at read.
 *
 * Writers only insert (no shared row is read and rewritten), so concurrent writers neither wait
 * for each other nor lose an update, and a figure read after a commit includes it. An update
 * that changes nothing the figure reads does not call the trigger (its WHEN clause). A bulk
 * insert adds one row per group of its statement (statement triggers over the inserted rows).
 * A TRUNCATE of the source table empties the deltas.
 *
 * The seeds are taken in the same transaction as the triggers: CREATE TRIGGER locks the table
 * against writes until COMMIT (the count of services and the sums of the paid invoices and
 * refunds by day run meanwhile: 8 s at 10× on the shared bench machine, 0.6 s at 1×), so no
 * write is counted twice or missed; writes to services, invoices and refunds wait that long once.
 *
 * What it costs a writer: an update that pays an invoice inserts one delta row from the trigger,
 * about 0.15 ms more per payment (0.40 → 0.55 ms per single-row UPDATE, measured in a loop of
 * 1,500 on the 1× data); updates that change nothing counted do not call the trigger.
 *
 * `services_unfinished_since_idx`: the dashboard's `provisioning_stuck` (unfinished, not awaiting
 * an admin or upstream funds, no progress for 30 minutes) counts from this partial index alone
 * (index-only: the columns of its key are included), not from the heap of every unfinished
 * service (at 10×, 45,000: 65–72 ms → 16 ms). Its predicate excludes both awaiting stages, so the
 * counts of those (the awaiting-funds gauge, `provisioning_awaiting_admin`) keep their plans.
 * Built concurrently after the transaction (the table is live while the release before runs).
 *
 * New tables, triggers, functions and an index only: nothing is dropped or renamed.
 */
export const UNFINISHED_SINCE_INDEX = {
  name: 'services_unfinished_since_idx',
  on: `services (COALESCE(stage_changed_at, created_at)) INCLUDE (stage_changed_at, created_at)
       WHERE status IN ('pending', 'provisioning', 'failed')
         AND provisioning_stage IS DISTINCT FROM 'awaiting_admin' AND provisioning_stage IS DISTINCT FROM 'awaiting_upstream_funds'`,
};
/** The services' status count (`status-deltas.ts`). */
export const SERVICE_STATUSES: StatusDeltas = { table: 'services', deltas: 'service_status_deltas', status: 'VARCHAR(24)' };
export const SEED_SERVICE_STATUS_SQL = statusDeltasSeedSql(SERVICE_STATUSES);

export const SEED_DAILY_MONEY_SQL = `
  INSERT INTO daily_money_deltas (day, source, type, amount, n)
  SELECT (paid_at AT TIME ZONE 'Asia/Shanghai')::date, 'invoice', type, sum(amount), count(*)
    FROM invoices WHERE status IN ('paid', 'partially_refunded', 'refunded') AND paid_at IS NOT NULL GROUP BY 1, 3;
  INSERT INTO daily_money_deltas (day, source, type, amount, n)
  SELECT (refunded_at AT TIME ZONE 'Asia/Shanghai')::date, 'refund', '', sum(amount), count(*)
    FROM refunds WHERE status = 'succeeded' AND refunded_at IS NOT NULL GROUP BY 1`;

const PAID = `('paid', 'partially_refunded', 'refunded')`;

export const migration0044KeptDashboardFigures: Migration = {
  name: '0044-kept-dashboard-figures',
  async up({ context: sequelize }) {
    // One simple-protocol query: PostgreSQL runs its statements as one transaction.
    await sequelize.query(`
      ${statusDeltasSql(SERVICE_STATUSES)}
      CREATE TABLE daily_money_deltas (
        id BIGSERIAL PRIMARY KEY,
        day DATE NOT NULL,
        source VARCHAR(16) NOT NULL CHECK (source IN ('invoice', 'refund')),
        type VARCHAR(24) NOT NULL,
        amount NUMERIC(18,2) NOT NULL,
        n INTEGER NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX daily_money_deltas_day_idx ON daily_money_deltas (day, source) INCLUDE (type, amount, n);

      CREATE FUNCTION daily_money_deltas_invoices() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO daily_money_deltas (day, source, type, amount, n)
          SELECT (paid_at AT TIME ZONE 'Asia/Shanghai')::date, 'invoice', type, sum(amount), count(*)
            FROM added WHERE status IN ${PAID} AND paid_at IS NOT NULL GROUP BY 1, 3;
          RETURN NULL;
        ELSIF TG_OP = 'TRUNCATE' THEN
          DELETE FROM daily_money_deltas WHERE source = 'invoice';
          RETURN NULL;
        END IF;
        -- An update that may change what the row contributes (the WHEN clause of the trigger).
        IF OLD.status IN ${PAID} AND OLD.paid_at IS NOT NULL THEN
          INSERT INTO daily_money_deltas (day, source, type, amount, n)
          VALUES ((OLD.paid_at AT TIME ZONE 'Asia/Shanghai')::date, 'invoice', OLD.type, -OLD.amount, -1);
        END IF;
        IF NEW.status IN ${PAID} AND NEW.paid_at IS NOT NULL THEN
          INSERT INTO daily_money_deltas (day, source, type, amount, n)
          VALUES ((NEW.paid_at AT TIME ZONE 'Asia/Shanghai')::date, 'invoice', NEW.type, NEW.amount, 1);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER invoices_daily_money_insert AFTER INSERT ON invoices
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION daily_money_deltas_invoices();
      CREATE TRIGGER invoices_daily_money_truncate AFTER TRUNCATE ON invoices
        FOR EACH STATEMENT EXECUTE FUNCTION daily_money_deltas_invoices();
      -- Paid → partially refunded → refunded keeps the contribution: the trigger is not called.
      CREATE TRIGGER invoices_daily_money_update AFTER UPDATE ON invoices FOR EACH ROW
        WHEN ((OLD.status IN ${PAID} AND OLD.paid_at IS NOT NULL) IS DISTINCT FROM (NEW.status IN ${PAID} AND NEW.paid_at IS NOT NULL)
              OR ((NEW.status IN ${PAID} AND NEW.paid_at IS NOT NULL)
                  AND (OLD.paid_at, OLD.amount, OLD.type) IS DISTINCT FROM (NEW.paid_at, NEW.amount, NEW.type)))
        EXECUTE FUNCTION daily_money_deltas_invoices();

      CREATE FUNCTION daily_money_deltas_refunds() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO daily_money_deltas (day, source, type, amount, n)
          SELECT (refunded_at AT TIME ZONE 'Asia/Shanghai')::date, 'refund', '', sum(amount), count(*)
            FROM added WHERE status = 'succeeded' AND refunded_at IS NOT NULL GROUP BY 1;
          RETURN NULL;
        ELSIF TG_OP = 'TRUNCATE' THEN
          DELETE FROM daily_money_deltas WHERE source = 'refund';
          RETURN NULL;
        END IF;
        IF OLD.status = 'succeeded' AND OLD.refunded_at IS NOT NULL THEN
          INSERT INTO daily_money_deltas (day, source, type, amount, n)
          VALUES ((OLD.refunded_at AT TIME ZONE 'Asia/Shanghai')::date, 'refund', '', -OLD.amount, -1);
        END IF;
        IF NEW.status = 'succeeded' AND NEW.refunded_at IS NOT NULL THEN
          INSERT INTO daily_money_deltas (day, source, type, amount, n)
          VALUES ((NEW.refunded_at AT TIME ZONE 'Asia/Shanghai')::date, 'refund', '', NEW.amount, 1);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER refunds_daily_money_insert AFTER INSERT ON refunds
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION daily_money_deltas_refunds();
      CREATE TRIGGER refunds_daily_money_truncate AFTER TRUNCATE ON refunds
        FOR EACH STATEMENT EXECUTE FUNCTION daily_money_deltas_refunds();
      CREATE TRIGGER refunds_daily_money_update AFTER UPDATE ON refunds FOR EACH ROW
        WHEN ((OLD.status = 'succeeded' AND OLD.refunded_at IS NOT NULL) IS DISTINCT FROM (NEW.status = 'succeeded' AND NEW.refunded_at IS NOT NULL)
              OR ((NEW.status = 'succeeded' AND NEW.refunded_at IS NOT NULL)
                  AND (OLD.refunded_at, OLD.amount) IS DISTINCT FROM (NEW.refunded_at, NEW.amount)))
        EXECUTE FUNCTION daily_money_deltas_refunds();

      ${SEED_SERVICE_STATUS_SQL};
      ${SEED_DAILY_MONEY_SQL};
    `);
    await buildIndexConcurrently(sequelize, UNFINISHED_SINCE_INDEX.name, UNFINISHED_SINCE_INDEX.on);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`DROP INDEX CONCURRENTLY IF EXISTS ${UNFINISHED_SINCE_INDEX.name}`);
    await sequelize.query(`
      DROP TRIGGER IF EXISTS services_status_deltas_insert ON services;
      DROP TRIGGER IF EXISTS services_status_deltas_delete ON services;
      DROP TRIGGER IF EXISTS services_status_deltas_truncate ON services;
      DROP TRIGGER IF EXISTS services_status_deltas_update ON services;
      DROP TRIGGER IF EXISTS invoices_daily_money_insert ON invoices;
      DROP TRIGGER IF EXISTS invoices_daily_money_truncate ON invoices;
      DROP TRIGGER IF EXISTS invoices_daily_money_update ON invoices;
      DROP TRIGGER IF EXISTS refunds_daily_money_insert ON refunds;
      DROP TRIGGER IF EXISTS refunds_daily_money_truncate ON refunds;
      DROP TRIGGER IF EXISTS refunds_daily_money_update ON refunds;
      DROP FUNCTION IF EXISTS service_status_deltas_rows(), service_status_deltas_move(), daily_money_deltas_invoices(), daily_money_deltas_refunds();
      DROP TABLE IF EXISTS service_status_deltas, daily_money_deltas;
    `);
  },
};

import type { Migration } from './types.js';

/**
 * The dashboard's open tickets kept in the transaction of the write (issue #35), as the active
 * services are (migration 0044): `ticket_status_deltas` (status, delta) gets ±1 per status a
 * ticket enters or leaves, from triggers on `tickets` in the writer's own transaction (a bulk
 * insert or delete one row per status of its statement; a TRUNCATE empties it), and the
 * dashboard sums the rows of the open statuses. `dashboard.fold_figures` folds them per status.
 * The count it replaces read every open ticket's index entry: 40,000 at 10×, 13–21 ms.
 *
 * The table, the triggers and the seed are one transaction: the trigger's lock on `tickets`
 * holds writers until the seed has counted, so no ticket is counted twice or missed. New table,
 * functions and triggers only: nothing is dropped or renamed.
 */
export const SEED_TICKET_STATUS_SQL = `INSERT INTO ticket_status_deltas (status, delta) SELECT status, count(*) FROM tickets GROUP BY status`;

export const migration0051KeptTicketStatuses: Migration = {
  name: '0051-kept-ticket-statuses',
  async up({ context: sequelize }) {
    // One simple-protocol query: PostgreSQL runs its statements as one transaction.
    await sequelize.query(`
      CREATE TABLE ticket_status_deltas (
        id BIGSERIAL PRIMARY KEY,
        status VARCHAR(16) NOT NULL,
        delta INTEGER NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX ticket_status_deltas_status_idx ON ticket_status_deltas (status) INCLUDE (delta);

      CREATE FUNCTION ticket_status_deltas_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO ticket_status_deltas (status, delta) SELECT status, count(*) FROM added GROUP BY status;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO ticket_status_deltas (status, delta) SELECT status, -count(*) FROM removed GROUP BY status;
        ELSE
          DELETE FROM ticket_status_deltas;
        END IF;
        RETURN NULL;
      END $$;
      CREATE FUNCTION ticket_status_deltas_move() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO ticket_status_deltas (status, delta) VALUES (OLD.status, -1), (NEW.status, 1);
        RETURN NULL;
      END $$;
      CREATE TRIGGER tickets_status_deltas_insert AFTER INSERT ON tickets
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION ticket_status_deltas_rows();
      CREATE TRIGGER tickets_status_deltas_delete AFTER DELETE ON tickets
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION ticket_status_deltas_rows();
      CREATE TRIGGER tickets_status_deltas_truncate AFTER TRUNCATE ON tickets
        FOR EACH STATEMENT EXECUTE FUNCTION ticket_status_deltas_rows();
      CREATE TRIGGER tickets_status_deltas_update AFTER UPDATE OF status ON tickets
        FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION ticket_status_deltas_move();

      ${SEED_TICKET_STATUS_SQL};
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      DROP TRIGGER IF EXISTS tickets_status_deltas_insert ON tickets;
      DROP TRIGGER IF EXISTS tickets_status_deltas_delete ON tickets;
      DROP TRIGGER IF EXISTS tickets_status_deltas_truncate ON tickets;
      DROP TRIGGER IF EXISTS tickets_status_deltas_update ON tickets;
      DROP FUNCTION IF EXISTS ticket_status_deltas_rows(), ticket_status_deltas_move();
      DROP TABLE IF EXISTS ticket_status_deltas;
    `);
  },
};

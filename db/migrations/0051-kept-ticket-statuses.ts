import { statusDeltasDropSql, statusDeltasSeedSql, statusDeltasSql, type StatusDeltas } from './status-deltas.js';
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
/** The tickets' status count (`status-deltas.ts`). */
export const TICKET_STATUSES: StatusDeltas = { table: 'tickets', deltas: 'ticket_status_deltas', status: 'VARCHAR(16)' };
export const SEED_TICKET_STATUS_SQL = statusDeltasSeedSql(TICKET_STATUSES);

export const migration0051KeptTicketStatuses: Migration = {
  name: '0051-kept-ticket-statuses',
  async up({ context: sequelize }) {
    // One simple-protocol query: PostgreSQL runs its statements as one transaction.
    await sequelize.query(`
      ${statusDeltasSql(TICKET_STATUSES)}
      ${SEED_TICKET_STATUS_SQL};
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(statusDeltasDropSql(TICKET_STATUSES));
  },
};

import { buildIndexConcurrently } from './concurrent-index.js';
import type { Migration } from './types.js';

/**
 * The due services in due-date order with the id as tie-break (issue #35):
 * `services.renewal_invoices` walks the services due within the lead days (or past due) in
 * batches keyed on (next_due_at, id), so a run reads the due range once. `services_due_idx`
 * (next_due_at only, 0008) cannot take the row comparison as its condition: among services sharing
 * a due date (due dates fall on the same midnight: at 10× 61,678 services due share 28 due dates,
 * up to 3,334 each) every batch would read its whole date again. Partial on the same statuses.
 *
 * Built concurrently (the table is live while the release before runs); an index only, so it
 * contracts nothing. `services_due_idx` stays: the other lifecycle tasks read its ranges.
 */
export const DUE_KEY_INDEX = { name: 'services_due_key_idx', on: `services (next_due_at, id) WHERE status IN ('active', 'suspended')` };

export const migration0041DueKeyIndex: Migration = {
  name: '0041-due-key-index',
  async up({ context: sequelize }) {
    await buildIndexConcurrently(sequelize, DUE_KEY_INDEX.name, DUE_KEY_INDEX.on);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`DROP INDEX CONCURRENTLY IF EXISTS ${DUE_KEY_INDEX.name}`);
  },
};

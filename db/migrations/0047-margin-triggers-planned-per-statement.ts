import { collectCached, marginTriggerFunctions } from './0042-stored-margins.js';
import type { Migration } from './types.js';

/**
 * The kept margins' trigger functions (0042) plan the statement that reads their transition
 * tables for each statement they follow, not once per session.
 *
 * PL/pgSQL caches the plan of a statement without parameters for the session, and a transition
 * table's row count is estimated when that plan is made. So a session whose first paid invoice
 * was one row kept that plan for every later statement: on a purchase invoice shared by 100,000
 * services (`services.invoice_id` then looks like a value with 100,000 rows) the one-row plan is a
 * nested loop over a sequential scan, and one statement of 50,400 paid renewals in that session
 * compared 5 billion pairs (minutes; a fresh session hashed it in 4.7 s). `EXECUTE` plans each
 * time with the statement's real row count; planning these small queries costs well under a
 * millisecond. Only the function bodies change: the release before keeps running on either.
 */
const collectPlannedEachTime = (query: string): string => `EXECUTE $collect$SELECT ARRAY(${query})$collect$ INTO ids;`;

export const migration0047MarginTriggersPlannedPerStatement: Migration = {
  name: '0047-margin-triggers-planned-per-statement',
  async up({ context: sequelize }) {
    await sequelize.query(marginTriggerFunctions(collectPlannedEachTime));
  },
  async down({ context: sequelize }) {
    await sequelize.query(marginTriggerFunctions(collectCached));
  },
};

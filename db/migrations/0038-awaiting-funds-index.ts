import { buildIndexConcurrently } from './concurrent-index.js';
import type { Migration } from './types.js';

/**
 * The service orders waiting for upstream funds (issue #36): the count of work in
 * `awaiting_upstream_funds` (the dashboard's `upstream_funds_waiting`, the
 * `upstream_work_awaiting_funds` gauge at every scrape) and its count per supplier (the funds
 * list, `listSupplierFunds`) read `service_orders` by `stage`, which no index served: each read
 * was a scan of every service order ever made. The partial index holds only the waiting ones, so
 * the reads follow the work waiting, not the table. The provisioning side needs none: it reads
 * `services` through `services_stage_order_idx` (0033), whose first column is the stage, and each
 * service's binding by its key.
 *
 * Built concurrently (the table is live while the release before runs); an index only, so it
 * contracts nothing.
 */
export const AWAITING_FUNDS_INDEX = { name: 'service_orders_awaiting_funds_idx', on: `service_orders (supplier_id) WHERE stage = 'awaiting_upstream_funds'` };

export const migration0038AwaitingFundsIndex: Migration = {
  name: '0038-awaiting-funds-index',
  async up({ context: sequelize }) {
    await buildIndexConcurrently(sequelize, AWAITING_FUNDS_INDEX.name, AWAITING_FUNDS_INDEX.on);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`DROP INDEX CONCURRENTLY IF EXISTS ${AWAITING_FUNDS_INDEX.name}`);
  },
};

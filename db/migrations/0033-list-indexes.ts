import { buildIndexConcurrently } from './concurrent-index.js';
import type { Migration } from './types.js';

/**
 * Indexes of the lists, filters, searches and dashboard figures at the data of a reseller's
 * third year (issue #35: 100,000 clients, 3,000,000 invoices). Each list's order and each
 * documented filter is served by an index, so a page and its count within the paging window
 * (lib/paging.ts) read at most that window whatever the table holds; keyword searches (`ILIKE
 * '%…%'`) use trigram indexes (pg_trgm, shipped with PostgreSQL); the dashboard's money figures
 * read the paid invoices of their range from a covering index.
 *
 * Built CONCURRENTLY, one statement each (outside a transaction), so a running release keeps
 * writing while they build; IF NOT EXISTS, so a build interrupted half-way is taken up again (an
 * invalid index left by such an interruption is dropped and built again first): `buildIndexConcurrently`.
 */
const INDEXES: Array<[name: string, definition: string]> = [
  ['invoices_type_idx', 'invoices (type, id DESC)'],
  ['invoices_channel_idx', 'invoices (payment_channel, id DESC) WHERE payment_channel IS NOT NULL'],
  ['invoices_paid_idx', 'invoices (paid_at) INCLUDE (type, status, amount, id, service_id) WHERE paid_at IS NOT NULL'],
  ['services_status_id_idx', 'services (status, id DESC)'],
  ['services_type_idx', 'services (product_type, id DESC)'],
  ['services_product_idx', 'services (product_id, id DESC)'],
  ['services_created_idx', 'services (created_at)'],
  ['services_work_order_idx', 'services ((COALESCE(stage_changed_at, created_at)) DESC, id DESC)'],
  ['services_stage_order_idx', 'services (provisioning_stage, (COALESCE(stage_changed_at, created_at)) DESC, id DESC)'],
  ['services_supplier_order_idx', 'services (supplier_id, (COALESCE(stage_changed_at, created_at)) DESC, id DESC)'],
  ['services_hostname_trgm', 'services USING gin (hostname gin_trgm_ops)'],
  ['services_ip_trgm', 'services USING gin (ip gin_trgm_ops)'],
  ['services_product_name_trgm', 'services USING gin (product_name gin_trgm_ops)'],
  ['account_transactions_type_idx', 'account_transactions (type, id DESC)'],
  ['account_transactions_payment_idx', 'account_transactions (payment_id) WHERE payment_id IS NOT NULL'],
  ['account_transactions_refund_idx', 'account_transactions (refund_id) WHERE refund_id IS NOT NULL'],
  ['payments_status_idx', 'payments (status, id DESC)'],
  ['payments_trade_no_idx', 'payments (trade_no) WHERE trade_no IS NOT NULL'],
  ['recharge_records_scene_idx', 'recharge_records (scene, id DESC)'],
  ['recharge_records_direction_idx', 'recharge_records (direction, id DESC)'],
  ['refunds_status_idx', 'refunds (status, id DESC)'],
  ['refunds_method_idx', 'refunds (refund_method, id DESC)'],
  ['refunds_refunded_idx', "refunds (refunded_at) WHERE status = 'succeeded'"],
  ['tickets_last_reply_idx', 'tickets (last_reply_at DESC, id DESC)'],
  ['tickets_department_idx', 'tickets (department_id, id DESC)'],
  ['tickets_priority_idx', 'tickets (priority, id DESC)'],
  ['tickets_assignee_idx', 'tickets (assignee_admin_id, id DESC) WHERE assignee_admin_id IS NOT NULL'],
  ['tickets_subject_trgm', 'tickets USING gin (subject gin_trgm_ops)'],
  ['users_email_trgm', 'users USING gin (email gin_trgm_ops)'],
  ['users_phone_trgm', 'users USING gin (phone gin_trgm_ops)'],
  ['users_nickname_trgm', 'users USING gin (nickname gin_trgm_ops)'],
];

export const migration0033ListIndexes: Migration = {
  name: '0033-list-indexes',
  async up({ context: sequelize }) {
    await sequelize.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    for (const [name, definition] of INDEXES) await buildIndexConcurrently(sequelize, name, definition);
  },
  async down({ context: sequelize }) {
    for (const [name] of INDEXES) await sequelize.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  },
};

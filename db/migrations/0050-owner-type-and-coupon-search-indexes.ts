import { concurrentIndexesMigration, type ConcurrentIndex } from './concurrent-index.js';

/**
 * Indexes for two reads that grew with the whole table (issue #35, bench/results 2026-11-29):
 * - `invoices_user_type_idx` (user_id, type, id DESC): a client's invoices of one type (the
 *   client list's and the admin's per-user list's `type` filter). Their count within the window
 *   was planned as a BitmapAnd of the user's index and the type's, reading every invoice of that
 *   type in the table: 3 → 12 ms from 1× to 10× for a client holding 10,032 invoices.
 * - `coupons_code_trgm`, `coupons_name_trgm`: the admin coupon list's keyword (substring of code
 *   or name), which read every coupon (domain/marketing/coupons.ts `listCoupons`).
 * Built concurrently on live tables; nothing is dropped or renamed.
 */
const INDEXES: ReadonlyArray<ConcurrentIndex> = [
  { name: 'invoices_user_type_idx', on: 'invoices (user_id, type, id DESC)' },
  { name: 'coupons_code_trgm', on: 'coupons USING gin (code gin_trgm_ops)' },
  { name: 'coupons_name_trgm', on: 'coupons USING gin (name gin_trgm_ops)' },
];

export const migration0050OwnerTypeAndCouponSearchIndexes = concurrentIndexesMigration('0050-owner-type-and-coupon-search-indexes', INDEXES);

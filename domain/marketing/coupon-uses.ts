import { AppError, ErrorCode } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';
import { sqlOne, sqlRows, type Tx } from '../../db/sql.js';
import type { CouponScene } from '../../db/models/marketing.js';
import type { AppliedCoupon } from './discounts.js';

/**
 * Reserves one use of the coupon for the invoice just written, in the invoice's transaction.
 * Two guarded statements, each deciding alone (never a count read earlier):
 * - `UPDATE coupons SET used = used + 1 WHERE … AND used < total_uses` takes one of the uses
 *   left (still active and in its window), or nothing: of 50 buyers racing for the last use,
 *   exactly one gets a row back;
 * - the user's own count is an upsert that only increments below `per_user_limit`.
 * Either refusal throws 40980 and the whole transaction, invoice included, rolls back.
 */
export async function reserveCouponUse(
  deps: DomainDeps,
  input: { coupon: AppliedCoupon; userId: number; invoiceId: number; scene: CouponScene },
  tx: Tx,
): Promise<void> {
  const taken = await sqlOne<{ id: number }>(
    deps,
    `UPDATE coupons SET used = used + 1, updated_at = now()
      WHERE id = $1 AND status = 'active' AND (total_uses IS NULL OR used < total_uses)
        AND (starts_at IS NULL OR starts_at <= now()) AND (ends_at IS NULL OR ends_at > now())
      RETURNING id`,
    [input.coupon.id],
    tx,
  );
  if (!taken) throw new AppError(ErrorCode.COUPON_UNAVAILABLE, '优惠券已被领完或已失效', { coupon_code: input.coupon.code });
  const mine = await sqlOne<{ used: number }>(
    deps,
    `INSERT INTO coupon_user_uses (coupon_id, user_id, used) VALUES ($1, $2, 1)
     ON CONFLICT (coupon_id, user_id) DO UPDATE SET used = coupon_user_uses.used + 1
       WHERE $3::int IS NULL OR coupon_user_uses.used < $3::int
     RETURNING used`,
    [input.coupon.id, input.userId, input.coupon.perUserLimit],
    tx,
  );
  if (!mine || (input.coupon.perUserLimit !== null && mine.used > input.coupon.perUserLimit)) {
    throw new AppError(ErrorCode.COUPON_UNAVAILABLE, '您已达到该优惠券的使用次数上限', { coupon_code: input.coupon.code });
  }
  await sqlOne(
    deps,
    `INSERT INTO coupon_uses (coupon_id, user_id, invoice_id, scene, discount_amount, status) VALUES ($1, $2, $3, $4, $5, 'reserved') RETURNING id`,
    [input.coupon.id, input.userId, input.invoiceId, input.scene, input.coupon.discount],
    tx,
  );
}

/**
 * The invoice was paid: its reserved use becomes final (guarded: once), as a CTE of the
 * settlement's statement, which reads the settled invoice as `source` (no row: nothing changes).
 */
export function finalizeCouponUseCte(source: string): string {
  return `coupon_final AS (
       UPDATE coupon_uses SET status = 'final', updated_at = now() WHERE invoice_id = (SELECT id FROM ${source}) AND status = 'reserved' RETURNING id
     )`;
}

/**
 * The invoice was cancelled (by the user or as stale): its reserved use is released and both
 * counts go back down, once (the `reserved` guard), in the cancellation's transaction.
 */
export async function releaseCouponUse(deps: DomainDeps, invoiceId: number, tx: Tx): Promise<void> {
  await sqlRows(
    deps,
    `WITH released AS (
       UPDATE coupon_uses SET status = 'released', updated_at = now() WHERE invoice_id = $1 AND status = 'reserved' RETURNING coupon_id, user_id
     ), coupon AS (
       UPDATE coupons c SET used = c.used - 1, updated_at = now() FROM released r WHERE c.id = r.coupon_id RETURNING c.id
     )
     UPDATE coupon_user_uses u SET used = u.used - 1 FROM released r WHERE u.coupon_id = r.coupon_id AND u.user_id = r.user_id RETURNING u.coupon_id`,
    [invoiceId],
    tx,
  );
}

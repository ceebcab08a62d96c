import { AppError, ErrorCode } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';
import { sqlOne, sqlRows, statement, type Tx } from '../../db/sql.js';
import type { CouponScene } from '../../db/models/marketing.js';
import type { AppliedCoupon } from './discounts.js';

/**
 * The use taken from the coupon (`used < total_uses`, still active and in its window), the user's
 * own count (an upsert that only increments below `per_user_limit`) and the reserved use, in one
 * statement: each step only runs on the row the one before returned, and the coupon's row lock,
 * which every buyer of the coupon waits on, is held from this statement to the COMMIT that
 * follows it (three round trips before: buyers of one coupon queued behind each of them).
 */
const RESERVE_USE = statement(`
  WITH taken AS (
    UPDATE coupons SET used = used + 1, updated_at = now()
     WHERE id = $1 AND status = 'active' AND (total_uses IS NULL OR used < total_uses)
       AND (starts_at IS NULL OR starts_at <= now()) AND (ends_at IS NULL OR ends_at > now())
     RETURNING id
  ), mine AS (
    INSERT INTO coupon_user_uses (coupon_id, user_id, used) SELECT id, $2, 1 FROM taken
    ON CONFLICT (coupon_id, user_id) DO UPDATE SET used = coupon_user_uses.used + 1
      WHERE $3::int IS NULL OR coupon_user_uses.used < $3::int
    RETURNING used
  ), recorded AS (
    INSERT INTO coupon_uses (coupon_id, user_id, invoice_id, scene, discount_amount, status)
    SELECT $1, $2, $4, $5, $6, 'reserved' FROM mine WHERE $3::int IS NULL OR mine.used <= $3::int
    RETURNING id
  )
  SELECT (SELECT count(*) FROM taken)::int AS taken, (SELECT used FROM mine) AS used, (SELECT count(*) FROM recorded)::int AS recorded`);

/**
 * Reserves one use of the coupon for the invoice just written, in the invoice's transaction, as
 * its last statement. Each guard decides alone (never a count read earlier):
 * - `UPDATE coupons SET used = used + 1 WHERE … AND used < total_uses` takes one of the uses
 *   left, or nothing: of 50 buyers racing for the last use, exactly one gets a row back;
 * - the user's own count only increments below `per_user_limit`.
 * Either refusal throws 40980 and the whole transaction, invoice included, rolls back.
 */
export async function reserveCouponUse(
  deps: DomainDeps,
  input: { coupon: AppliedCoupon; userId: number; invoiceId: number; scene: CouponScene },
  tx: Tx,
): Promise<void> {
  const reserved = await sqlOne<{ taken: number; used: number | null; recorded: number }>(
    deps,
    RESERVE_USE,
    [input.coupon.id, input.userId, input.coupon.perUserLimit, input.invoiceId, input.scene, input.coupon.discount],
    tx,
  );
  if (!reserved?.taken) throw new AppError(ErrorCode.COUPON_UNAVAILABLE, '优惠券已被领完或已失效', { coupon_code: input.coupon.code });
  if (!reserved.recorded) {
    throw new AppError(ErrorCode.COUPON_UNAVAILABLE, '您已达到该优惠券的使用次数上限', { coupon_code: input.coupon.code });
  }
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

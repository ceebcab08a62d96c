import { Decimal } from 'decimal.js';
import { validationError } from '../../lib/errors.js';
import { formatMoney, money } from '../../lib/money.js';
import type { DomainDeps } from '../deps.js';
import { sqlOne, type Tx, qualified } from '../../db/sql.js';
import { COUPON_COLUMNS, MEMBER_LEVEL_COLUMNS, type CouponRecord, type CouponScene, type MemberLevelRecord } from '../../db/models/marketing.js';

/** A priced line, as the catalogue's pricing answers it (discount lines have negative amounts). */
export type PricedLine = { key: string; label: string; unit_amount: string; quantity: number; amount: string };

/** What a discount may be limited to: the product and its first-level menu. */
export type DiscountScope = { productId: number; menuId: number | null };

export const SCENE_LABELS: Record<CouponScene, string> = { purchase: '新购', renewal: '续费', upgrade: '升级' };

/** The coupon a priced selection uses; reserved with the invoice (`reserveCouponUse`). */
export type AppliedCoupon = { id: number; code: string; discount: string; perUserLimit: number | null };

export type Discounted = {
  /** The subtotal's lines followed by the discount lines (`discount.member`, `discount.coupon`). */
  lines: PricedLine[];
  subtotal_amount: string;
  discount_amount: string;
  total_amount: string;
  member_level: { id: number; name: string; discount_percent: string } | null;
  coupon: AppliedCoupon | null;
};

function inScope(productIds: number[], menuIds: number[], scope: DiscountScope): boolean {
  if (productIds.length === 0 && menuIds.length === 0) return true;
  return productIds.includes(scope.productId) || (scope.menuId !== null && menuIds.includes(scope.menuId));
}

function discountLine(key: string, label: string, amount: Decimal): PricedLine {
  const negative = formatMoney(amount.negated());
  return { key, label, unit_amount: negative, quantity: 1, amount: negative };
}

/**
 * The discount rule (pure; the one place it is written). On the subtotal of the priced lines:
 * 1. the member level's percent, when the level covers the product (its products or menus; a
 *    level naming neither covers everything), rounded half-up to the cent;
 * 2. then the coupon, on what is left after the member discount: its minimum amount is checked
 *    against that amount, a percent coupon takes its percent of it, a fixed one its value but
 *    never more than is left. The total never goes below zero.
 * Each discount is a line of its own with a negative amount, so the lines add up to the total.
 */
export function applyDiscounts(input: {
  lines: PricedLine[];
  scope: DiscountScope;
  level: MemberLevelRecord | null;
  coupon: CouponRecord | null;
}): Discounted {
  const subtotal = input.lines.reduce((sum, l) => sum.plus(l.amount), money(0));
  const lines = [...input.lines];
  let left = subtotal;
  let memberLevel: Discounted['member_level'] = null;
  const level = input.level;
  if (level && money(level.discount_percent).gt(0) && inScope(level.product_ids, level.menu_ids, input.scope)) {
    const off = left.times(level.discount_percent).div(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    if (off.gt(0)) {
      lines.push(discountLine('discount.member', `会员折扣（${level.name}，${formatMoney(money(100).minus(level.discount_percent).div(10))} 折）`, off));
      left = left.minus(off);
    }
    memberLevel = { id: level.id, name: level.name, discount_percent: formatMoney(level.discount_percent) };
  }
  let coupon: AppliedCoupon | null = null;
  if (input.coupon) {
    const c = input.coupon;
    if (left.lt(c.min_amount)) throw validationError({ coupon_code: [`订单金额满 ${formatMoney(c.min_amount)} 元才可使用该优惠券`] });
    const raw = c.kind === 'percent' ? left.times(c.value).div(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP) : money(c.value);
    const off = raw.gt(left) ? left : raw;
    lines.push(discountLine('discount.coupon', `优惠券 ${c.code}`, off));
    left = left.minus(off);
    coupon = { id: c.id, code: c.code, discount: formatMoney(off), perUserLimit: c.per_user_limit };
  }
  return {
    lines,
    subtotal_amount: formatMoney(subtotal),
    discount_amount: formatMoney(subtotal.minus(left)),
    total_amount: formatMoney(left),
    member_level: memberLevel,
    coupon,
  };
}

/** The user's member level (admin-assigned or reached by spend), if any. */
export async function findUserLevel(deps: DomainDeps, userId: number, tx?: Tx): Promise<MemberLevelRecord | null> {
  return sqlOne<MemberLevelRecord>(
    deps,
    `SELECT ${qualified(MEMBER_LEVEL_COLUMNS, 'l')} FROM user_member_levels u JOIN member_levels l ON l.id = u.level_id WHERE u.user_id = $1`,
    [userId],
    tx,
  );
}

export const COUPON_CODE_PATTERN = /^[A-Za-z0-9_-]{4,32}$/;

/**
 * The coupon of `code` if this user may use it here now; otherwise 42200 on `coupon_code` naming
 * why. The counts checked here are advisory: the use itself is reserved by a guarded UPDATE
 * (`reserveCouponUse`), which is what makes the last use go to exactly one buyer. A coupon
 * issued to another user reads as unknown.
 */
export async function findUsableCoupon(
  deps: DomainDeps,
  input: { code: string; userId: number; scene: CouponScene; scope: DiscountScope },
  tx?: Tx,
): Promise<CouponRecord> {
  const refuse = (message: string) => validationError({ coupon_code: [message] });
  if (!COUPON_CODE_PATTERN.test(input.code)) throw refuse('优惠码格式不正确');
  const coupon = await sqlOne<CouponRecord & { user_used: number | null; paid_before: boolean }>(
    deps,
    `SELECT ${qualified(COUPON_COLUMNS, 'c')},
            (SELECT u.used FROM coupon_user_uses u WHERE u.coupon_id = c.id AND u.user_id = $2) AS user_used,
            EXISTS (SELECT 1 FROM invoices i WHERE i.user_id = $2 AND i.type = 'purchase' AND i.paid_at IS NOT NULL) AS paid_before
       FROM coupons c WHERE c.code = upper($1) AND (c.owner_user_id IS NULL OR c.owner_user_id = $2)`,
    [input.code, input.userId],
    tx,
  );
  if (!coupon) throw refuse('优惠码不存在');
  const now = Date.now();
  if (coupon.status !== 'active') throw refuse('优惠券已停用');
  if (coupon.starts_at && coupon.starts_at.getTime() > now) throw refuse('优惠券尚未到使用时间');
  if (coupon.ends_at && coupon.ends_at.getTime() <= now) throw refuse('优惠券已过期');
  if (!coupon.scenes.includes(input.scene)) throw refuse(`该优惠券不能用于${SCENE_LABELS[input.scene]}`);
  if (!inScope(coupon.product_ids, coupon.menu_ids, input.scope)) throw refuse('该优惠券不适用于此商品');
  if (coupon.new_customers_only && coupon.paid_before) throw refuse('该优惠券仅限新客户首次购买使用');
  if (coupon.total_uses !== null && coupon.used >= coupon.total_uses) throw refuse('优惠券已被领完');
  if (coupon.per_user_limit !== null && (coupon.user_used ?? 0) >= coupon.per_user_limit) throw refuse('您已达到该优惠券的使用次数上限');
  return coupon;
}

/** The first-level menu of a product (the scope coupons and member levels may name). */
export async function scopeOfProduct(deps: DomainDeps, productId: number, tx?: Tx): Promise<DiscountScope> {
  const row = await sqlOne<{ first_product_group_id: number | null }>(deps, 'SELECT first_product_group_id FROM products WHERE id = $1', [productId], tx);
  return { productId, menuId: row?.first_product_group_id ?? null };
}

/**
 * THE marketing entry of the one pricing function: takes the priced lines of a purchase, a
 * renewal or an upgrade (the catalogue's `priceSelection`, the renewal option, the upgrade's
 * difference) and answers them with the member discount and the coupon applied
 * (`applyDiscounts`). Quotes, purchase invoices, renewal invoices and upgrade invoices all call
 * it, so what a quote shows is what the invoice charges. An invoice writer then books the
 * answer's lines as its items, its total as the amount, and calls `reserveCouponUse` in the
 * same transaction when `coupon` is set. `userId` null (an anonymous quote): no discount.
 */
export async function priceDiscounts(
  deps: DomainDeps,
  input: { userId: number | null; scene: CouponScene; productId: number; lines: PricedLine[]; couponCode?: string | null | undefined },
  tx?: Tx,
): Promise<Discounted> {
  const code = input.couponCode?.trim() ? input.couponCode.trim() : null;
  if (input.userId === null) {
    if (code) throw validationError({ coupon_code: ['使用优惠码请先登录'] });
    return applyDiscounts({ lines: input.lines, scope: { productId: input.productId, menuId: null }, level: null, coupon: null });
  }
  const scope = await scopeOfProduct(deps, input.productId, tx);
  // One after the other: inside a transaction both run on its one connection anyway.
  const level = await findUserLevel(deps, input.userId, tx);
  const coupon = code ? await findUsableCoupon(deps, { code, userId: input.userId, scene: input.scene, scope }, tx) : null;
  return applyDiscounts({ lines: input.lines, scope, level, coupon });
}

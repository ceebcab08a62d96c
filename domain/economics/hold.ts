import { sqlOne } from '../../db/sql.js';
import { AppError, ErrorCode } from '../../lib/errors.js';
import { money } from '../../lib/money.js';
import type { DomainDeps } from '../deps.js';
import { readSettings } from '../settings/settings.js';
import { economicsSettings } from '../settings/groups/economics.js';

export const BELOW_COST_MESSAGE = '该商品上游成本已高于售价，暂停销售，请等待管理员调整价格';

/**
 * SQL for "the finding `f` holds its product": an unresolved below-cost price finding of a
 * binding the product still has (issue #38: a product may have several, each with its own
 * findings), for a point (period and configuration) that no other binding of the product, on an
 * active supplier, was last seen selling at or below our price (its observation's upstream price
 * not above ours). A product sold below cost by one binding and at a margin by another is not
 * held: routing buys from the one that does not lose (docs/economics.md "Several bindings").
 * A further binding's point is stored as `<point>@<binding id>`; the first binding's as the point.
 */
export const FINDING_HOLDS_SQL = `(f.kind = 'price' AND f.below_cost AND f.state <> 'resolved'
   AND (f.binding_id IS NULL OR EXISTS (SELECT 1 FROM product_upstream_alternates fa WHERE fa.id = f.binding_id AND fa.product_id = f.product_id))
   AND NOT EXISTS (
     SELECT 1 FROM upstream_price_observations o
      WHERE o.product_id = f.product_id AND o.billing_period = f.billing_period AND o.upstream_price <= o.our_price
        AND o.option_key IN (
          SELECT COALESCE(f.point_key, f.option_key)
            FROM product_upstream_bindings b JOIN suppliers bs ON bs.id = b.supplier_id AND bs.status = 'active'
           WHERE b.product_id = f.product_id AND f.binding_id IS NOT NULL
          UNION ALL
          SELECT COALESCE(f.point_key, f.option_key) || '@' || a.id
            FROM product_upstream_alternates a JOIN suppliers asu ON asu.id = a.supplier_id AND asu.status = 'active'
           WHERE a.product_id = f.product_id AND a.id IS DISTINCT FROM f.binding_id)))`;

/**
 * SQL for "the product `p` is held below cost" (a finding holds it, `FINDING_HOLDS_SQL`; the
 * catalogue's listed product reads it, so quotes served from the catalogue cache see it too).
 */
export const BELOW_COST_SQL = `EXISTS (SELECT 1 FROM upstream_price_findings f
   WHERE f.product_id = p.id AND ${FINDING_HOLDS_SQL})`;

/**
 * The hold (issue #29 §2): with `economics.hold_below_cost` on, a product with an unresolved
 * below-cost finding is neither quoted nor sold (40904) until an admin reprices it (or its
 * upstream price falls back). Unpaid invoices stay payable and renewals are never refused:
 * only the quote and the new-purchase invoice call this. The same hold checked again before an
 * upstream payment is one of the kernel's checks before paying (`assertPurchaseAboveCost`,
 * domain/upstream-work/checks.ts).
 */
export async function assertNotHeldBelowCost(deps: DomainDeps, product: { below_cost: boolean }): Promise<void> {
  if (!product.below_cost) return;
  const { hold_below_cost } = await readSettings(deps, economicsSettings);
  if (hold_below_cost) throw new AppError(ErrorCode.PRICE_BELOW_UPSTREAM_COST, BELOW_COST_MESSAGE);
}

/** Whether a product is held now (the setting on and a below-cost finding open): the admin list shows it. */
export async function isHeldBelowCost(deps: DomainDeps, productId: number): Promise<boolean> {
  const { hold_below_cost } = await readSettings(deps, economicsSettings);
  if (!hold_below_cost) return false;
  const row = await sqlOne<{ held: boolean }>(deps, `SELECT ${BELOW_COST_SQL} AS held FROM products p WHERE p.id = $1`, [productId]);
  return row?.held ?? false;
}

/** Whether the hold below cost is on (`economics.hold_below_cost`): then a purchase whose upstream cost is above our price stops. */
export async function holdBelowCostOn(deps: DomainDeps): Promise<boolean> {
  return (await readSettings(deps, economicsSettings)).hold_below_cost;
}

/** The hold's comparison at the upstream purchase: the upstream cost is above our price (equal passes). */
export function costAbovePrice(cost: string, price: string): boolean {
  return money(cost).greaterThan(price);
}

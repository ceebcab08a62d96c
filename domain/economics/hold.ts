import { sqlOne } from '../../db/sql.js';
import { AppError, ErrorCode } from '../../lib/errors.js';
import { money } from '../../lib/money.js';
import type { DomainDeps } from '../deps.js';
import { readSettings } from '../settings/settings.js';
import { economicsSettings } from '../settings/groups/economics.js';

export const BELOW_COST_MESSAGE = '该商品上游成本已高于售价，暂停销售，请等待管理员调整价格';

/**
 * SQL for "the product `p` has an unresolved below-cost price finding" (the catalogue's listed
 * product reads it, so quotes served from the catalogue cache see it too).
 */
export const BELOW_COST_SQL = `EXISTS (SELECT 1 FROM upstream_price_findings f
   WHERE f.product_id = p.id AND f.kind = 'price' AND f.below_cost AND f.state <> 'resolved')`;

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

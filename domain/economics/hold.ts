import { sqlOne } from '../../db/sql.js';
import { AppError, ErrorCode } from '../../lib/errors.js';
import type { DomainDeps } from '../deps.js';
import { readSettings } from '../settings/settings.js';
import { economicsSettings } from '../settings/groups/economics.js';
import { UpstreamStepError } from '../suppliers/supplier-call.js';
import { formatMoney, money } from '../../lib/money.js';

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
 * only the quote and the new-purchase invoice call this.
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

/**
 * The cost checked again at the upstream purchase (issue #29 §2: an invoice paid while its
 * product is held stayed payable): with the hold on, a provisioning whose upstream bill (the
 * checkout's amount) is higher than the service's price stops before paying upstream and waits
 * for an admin with the figures (a permanent step failure: `awaiting_admin`). The admin decides
 * once: a retry buys at this cost (a recorded admin retry of the service's provisioning lets it
 * pass), a cancel refunds. Renewals, traffic packages and upgrades are never stopped (flagged only).
 */
export async function assertPurchaseAboveCost(deps: DomainDeps, input: { serviceId: number; upstreamAmount: string | null }): Promise<void> {
  if (input.upstreamAmount === null) return;
  const { hold_below_cost } = await readSettings(deps, economicsSettings);
  if (!hold_below_cost) return;
  const row = await sqlOne<{ price: string; retried: boolean }>(
    deps,
    `SELECT s.price::text AS price, EXISTS (SELECT 1 FROM service_events e
        WHERE e.service_id = s.id AND e.kind = 'provision' AND e.stage = 'retry' AND e.operator_type = 'admin') AS retried
       FROM services s WHERE s.id = $1`,
    [input.serviceId],
  );
  if (!row || row.retried || !money(input.upstreamAmount).greaterThan(row.price)) return;
  throw new UpstreamStepError(
    'permanent',
    'below_upstream_cost',
    `上游账单 ${formatMoney(input.upstreamAmount)} 元高于本服务售价 ${formatMoney(row.price)} 元（已开启低于成本暂停销售），尚未向上游付款：管理员重试即按此成本购买，取消即退款`,
  );
}

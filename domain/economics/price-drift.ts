import type { Transaction } from 'sequelize';
import { inSequelizeTransaction, sqlOne, sqlRows, statement, type Tx } from '../../db/sql.js';
import { AppError } from '../../lib/errors.js';
import { formatMoney, money } from '../../lib/money.js';
import { publishCatalogueChange } from '../catalogue/catalogue-events.js';
import type { DomainDeps } from '../deps.js';
import { readSettings } from '../settings/settings.js';
import { economicsSettings } from '../settings/groups/economics.js';
import { type AdminAlertInput, raiseAdminAlert } from './alerts.js';
import { BELOW_COST_SQL } from './hold.js';
import {
  bindingPointKey,
  type BoundProduct,
  listBoundProducts,
  type PricePoint,
  productPricePoints,
  readUpstreamPrices,
  renewalPricePoints,
  type UpstreamPrices,
} from './price-points.js';

/**
 * Gross margin on our selling price, in percent with two digits (half-up):
 * (our price − upstream cost) ÷ our price × 100. Null when our price is zero (no margin to speak
 * of; such a point is below cost whenever the upstream charges anything).
 */
export function grossMarginPercent(ours: string, upstream: string): string | null {
  const price = money(ours);
  if (price.isZero()) return null;
  return formatMoney(price.minus(upstream).div(price).times(100));
}

/** Whether a point is flagged: a price point below the floor or below cost; a renewal only at a loss. */
export function isFlagged(point: Pick<PricePoint, 'kind' | 'ours' | 'upstream'>, floorPercent: number): boolean {
  const belowCost = money(point.upstream).greaterThan(point.ours);
  if (point.kind === 'renewal') return belowCost;
  const margin = grossMarginPercent(point.ours, point.upstream);
  return belowCost || (margin !== null && money(margin).lessThan(floorPercent));
}

export type NewFinding = {
  id: string;
  product_id: number;
  /** The further binding it was seen on; null for the first binding. */
  binding_id: number | null;
  supplier_id: number | null;
  kind: 'price' | 'renewal';
  billing_period: string;
  option_key: string;
  old_upstream_price: string | null;
  new_upstream_price: string;
  our_price: string;
  margin_percent: string | null;
  below_cost: boolean;
};

/** The admin alert of one finding: one per finding (its id is the key), so one per change. */
function driftAlert(bound: BoundProduct, f: NewFinding): AdminAlertInput {
  const what = f.kind === 'renewal' ? '续费已亏损' : f.below_cost ? '低于上游成本' : '毛利率低于下限';
  const margin = f.margin_percent === null ? '—' : `${f.margin_percent}%`;
  return {
    kind: 'price_drift',
    key: `price-drift:${f.id}`,
    severity: f.below_cost ? 'critical' : 'warning',
    title: `商品「${bound.name}」${what}（供应商「${bound.supplier_name}」）`,
    message: `${f.billing_period} ${f.option_key}：供应商「${bound.supplier_name}」上游价格 ${f.old_upstream_price ?? '—'} → ${f.new_upstream_price}，本站售价 ${f.our_price}，毛利率 ${margin}`,
    subject: { product_id: f.product_id, finding_id: Number(f.id), supplier_id: bound.supplier_id, binding_id: bound.binding_id },
  };
}

type PointOutcome = { finding: NewFinding | null; resolved_below_cost: number; resolved: number };

/**
 * One point in one statement: the observation is inserted, or updated with `version + 1` when
 * the upstream price or ours changed (the previous upstream price kept beside it); a flagged
 * point inserts its finding for the current version (the UNIQUE key makes it once per change,
 * however many runs see it) and resolves the findings of older versions; a point no longer
 * flagged resolves every open finding of the point. `$3` is the binding's key of the point
 * (`bindingPointKey`): two bindings of one product never share an observation or a finding.
 */
const RECORD_POINT = statement(`
  WITH changed AS (
    INSERT INTO upstream_price_observations AS o (product_id, billing_period, option_key, upstream_price, our_price)
    VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (product_id, billing_period, option_key) DO UPDATE
      SET previous_upstream_price = o.upstream_price, upstream_price = EXCLUDED.upstream_price, our_price = EXCLUDED.our_price,
          version = o.version + 1, changed_at = now(), observed_at = now()
      WHERE (o.upstream_price, o.our_price) IS DISTINCT FROM (EXCLUDED.upstream_price, EXCLUDED.our_price)
    RETURNING version, previous_upstream_price
  ), current AS (
    SELECT version, previous_upstream_price FROM changed
    UNION ALL
    SELECT version, previous_upstream_price FROM upstream_price_observations
     WHERE product_id = $1 AND billing_period = $2 AND option_key = $3 AND NOT EXISTS (SELECT 1 FROM changed)
  ), inserted AS (
    INSERT INTO upstream_price_findings
      (kind, product_id, service_id, billing_period, option_key, option_label, observation_version, old_upstream_price,
       new_upstream_price, our_price, margin_percent, margin_floor_percent, below_cost, binding_id, supplier_id, point_key)
    SELECT $6, $1, $7, $2, $3, $8, c.version, c.previous_upstream_price, $4, $5, $9, $10, $11, $13, $14, $15 FROM current c WHERE $12::boolean
    ON CONFLICT ON CONSTRAINT upstream_price_findings_once DO NOTHING
    RETURNING id::text AS id, product_id, binding_id, supplier_id, kind, billing_period, option_key, old_upstream_price::text AS old_upstream_price,
              new_upstream_price::text AS new_upstream_price, our_price::text AS our_price, margin_percent::text AS margin_percent, below_cost
  ), resolved AS (
    UPDATE upstream_price_findings f SET state = 'resolved', resolved_at = now(), updated_at = now()
     WHERE f.product_id = $1 AND f.billing_period = $2 AND f.option_key = $3 AND f.state <> 'resolved'
       AND (NOT $12::boolean OR f.observation_version < (SELECT version FROM current))
    RETURNING f.below_cost
  )
  SELECT (SELECT row_to_json(i) FROM inserted i) AS finding,
         (SELECT count(*) FROM resolved)::int AS resolved,
         (SELECT count(*) FROM resolved WHERE below_cost)::int AS resolved_below_cost`);

async function recordPoint(deps: DomainDeps, bound: BoundProduct, point: PricePoint, floor: number, transaction: Transaction): Promise<PointOutcome> {
  const flagged = isFlagged(point, floor);
  const margin = grossMarginPercent(point.ours, point.upstream);
  const row = await sqlOne<PointOutcome>(
    deps,
    RECORD_POINT,
    [
      bound.product_id,
      point.period,
      bindingPointKey(bound.binding_id, point),
      point.upstream,
      point.ours,
      point.kind,
      point.serviceId,
      point.label,
      margin,
      floor,
      money(point.upstream).greaterThan(point.ours),
      flagged,
      bound.binding_id,
      bound.supplier_id,
      point.key,
    ],
    transaction,
  );
  return row ?? { finding: null, resolved: 0, resolved_below_cost: 0 };
}

export type ProductDriftOutcome = { product_id: number; binding_id: number | null; points: number; flagged: number; new_findings: NewFinding[]; resolved: number };

async function heldBelowCost(deps: DomainDeps, productId: number, tx: Tx): Promise<boolean> {
  return (await sqlOne<{ held: boolean }>(deps, `SELECT ${BELOW_COST_SQL} AS held FROM products p WHERE p.id = $1`, [productId], tx))?.held ?? false;
}

/**
 * Records every point of one binding of a product (in `transaction`, or one of its own) and
 * resolves the open findings of this binding's points that no longer exist (a period or
 * sub-option dropped, a service ended), and those of further bindings the product no longer has.
 * Storefront caches are dropped when the product's below-cost state may have changed (a
 * below-cost finding opened or resolved, or the hold itself turned: another binding's price
 * decides it too), so a hold starts or ends with the next quote.
 */
export async function recordProductDrift(
  deps: DomainDeps,
  bound: BoundProduct,
  upstream: UpstreamPrices,
  options: { transaction?: Transaction } = {},
): Promise<ProductDriftOutcome> {
  const settings = await readSettings(deps, economicsSettings);
  const floor = settings.margin_floor_percent;
  const points = [...productPricePoints(bound, upstream), ...(await renewalPricePoints(deps, bound, upstream))];
  const work = async (transaction: Transaction): Promise<ProductDriftOutcome> => {
    const outcome: ProductDriftOutcome = { product_id: bound.product_id, binding_id: bound.binding_id, points: points.length, flagged: 0, new_findings: [], resolved: 0 };
    const heldBefore = await heldBelowCost(deps, bound.product_id, transaction);
    let holdChanged = false;
    for (const point of points) {
      if (isFlagged(point, floor)) outcome.flagged += 1;
      const result = await recordPoint(deps, bound, point, floor, transaction);
      if (result.finding) {
        outcome.new_findings.push(result.finding);
        await raiseAdminAlert(deps, driftAlert(bound, result.finding), transaction);
        if (result.finding.below_cost && result.finding.kind === 'price') holdChanged = true;
      }
      outcome.resolved += result.resolved;
      if (result.resolved_below_cost > 0) holdChanged = true;
    }
    const gone = await sqlRows<{ below_cost: boolean }>(
      deps,
      `UPDATE upstream_price_findings f SET state = 'resolved', resolved_at = now(), updated_at = now()
        WHERE f.product_id = $1 AND f.state <> 'resolved'
          AND ((f.binding_id IS NOT DISTINCT FROM $3::int AND NOT ((f.billing_period || '/' || f.option_key) = ANY($2::text[])))
               OR (f.binding_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM product_upstream_alternates a WHERE a.id = f.binding_id AND a.product_id = f.product_id)))
        RETURNING f.below_cost`,
      [bound.product_id, points.map((p) => `${p.period}/${bindingPointKey(bound.binding_id, p)}`), bound.binding_id],
      transaction,
    );
    outcome.resolved += gone.length;
    if (gone.some((g) => g.below_cost)) holdChanged = true;
    if (holdChanged || heldBefore !== (await heldBelowCost(deps, bound.product_id, transaction))) await publishCatalogueChange(deps, transaction);
    return outcome;
  };
  const outcome = options.transaction ? await work(options.transaction) : await inSequelizeTransaction(deps, work);
  // The admin notice of each change: the open finding in the admin list (one row per change,
  // by its UNIQUE key) and one warning line, written only by the run that inserted it.
  for (const finding of outcome.new_findings) {
    deps.logger.warn(
      {
        finding_id: finding.id,
        product_id: finding.product_id,
        supplier_id: finding.supplier_id,
        binding_id: finding.binding_id,
        kind: finding.kind,
        billing_period: finding.billing_period,
        option_key: finding.option_key,
        old_upstream_price: finding.old_upstream_price,
        new_upstream_price: finding.new_upstream_price,
        our_price: finding.our_price,
        margin_percent: finding.margin_percent,
        below_cost: finding.below_cost,
      },
      finding.kind === 'renewal' ? 'upstream price drift: a renewal runs at a loss' : 'upstream price drift: margin below the floor',
    );
  }
  return outcome;
}

export type PriceDriftSummary = {
  /** Products checked (at least one of their bindings read). */
  products: number;
  /** Bindings checked: the first binding of each product and its further ones. */
  bindings: number;
  points: number;
  flagged: number;
  new_findings: number;
  resolved: number;
  failed: Array<{ product_id: number; binding_id: number | null; supplier_id: number; reason: string }>;
};

/**
 * The scheduled check (task `upstream.price-drift`, hourly and on demand): reads the upstream
 * prices of each binding of each bound product (the first binding and the further ones, issue
 * #38) once per supplier and upstream product, and records the binding's points. A binding whose
 * upstream cannot be read is named in the summary; the others (of the same product too) still run.
 */
export async function checkPriceDrift(deps: DomainDeps, input: { productIds?: number[] } = {}): Promise<PriceDriftSummary> {
  const bound = await listBoundProducts(deps, input.productIds);
  const summary: PriceDriftSummary = { products: 0, bindings: 0, points: 0, flagged: 0, new_findings: 0, resolved: 0, failed: [] };
  const upstreamCache = new Map<string, Promise<UpstreamPrices>>();
  const products = new Set<number>();
  for (const binding of bound) {
    const key = `${binding.supplier_id}/${binding.upstream_product_id}`;
    try {
      let upstream = upstreamCache.get(key);
      if (!upstream) {
        upstream = readUpstreamPrices(deps, binding);
        upstreamCache.set(key, upstream);
      }
      const outcome = await recordProductDrift(deps, binding, await upstream);
      products.add(binding.product_id);
      summary.bindings += 1;
      summary.points += outcome.points;
      summary.flagged += outcome.flagged;
      summary.new_findings += outcome.new_findings.length;
      summary.resolved += outcome.resolved;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      summary.failed.push({ product_id: binding.product_id, binding_id: binding.binding_id, supplier_id: binding.supplier_id, reason: error.message });
    }
  }
  summary.products = products.size;
  if (summary.failed.length > 0) {
    deps.logger.warn({ failed: summary.failed.map((f) => ({ product_id: f.product_id, supplier_id: f.supplier_id })) }, 'upstream price drift: some bindings could not be read');
  }
  return summary;
}

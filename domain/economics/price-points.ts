import type { Decimal } from 'decimal.js';
import { sqlRows } from '../../db/sql.js';
import { AppError } from '../../lib/errors.js';
import { formatMoney, money } from '../../lib/money.js';
import { BILLING_PERIODS, type BillingPeriod, billingPeriodLabel, isBillingPeriod } from '../catalogue/billing-periods.js';
import { type ConfigOptionItem, isQuantityOptionType, parseConfigOptions } from '../catalogue/config-options.js';
import { type PricingMap, parsePricingMap } from '../catalogue/pricing-map.js';
import { type PricedProduct, priceSelection } from '../catalogue/pricing.js';
import type { DomainDeps } from '../deps.js';
import { readUpstreamProduct } from '../suppliers/product-import.js';
import { getSupplier } from '../suppliers/suppliers.js';

/**
 * One price point of a bound product: what we charge and what the upstream charges us for the
 * same selection. `key` names the point: `base` (the period with every option at its default),
 * `<field>:<sub id>` (that sub-option chosen, the others at their defaults), or `service:<id>`
 * (one service's renewal: its locked-in price against the upstream price of its configuration).
 */
export type PricePoint = {
  kind: 'price' | 'renewal';
  period: BillingPeriod;
  key: string;
  label: string;
  serviceId: number | null;
  ours: string;
  upstream: string;
};

/**
 * One binding of a product as the drift check reads it: ours from the database, the upstream's
 * through its plugin. A product with further bindings (issue #38) is one of these per binding.
 */
export type BoundProduct = {
  product_id: number;
  name: string;
  /** The further binding's id (`product_upstream_alternates`); null for the first binding. */
  binding_id: number | null;
  supplier_id: number;
  supplier_name: string;
  upstream_product_id: string;
  price_rule: Record<string, unknown>;
  pricing: PricingMap;
  config_options: ConfigOptionItem[];
};

/** The upstream's current prices of one product, in our item shapes (the plugin normalises them). */
export type UpstreamPrices = { pricing: PricingMap; config_options: ConfigOptionItem[] };

/**
 * Every binding of every live product bound to a supplier's upstream product (optionally only
 * `productIds`): the first binding (`product_upstream_bindings`), then the further ones
 * (`product_upstream_alternates`) by priority.
 */
export async function listBoundProducts(deps: DomainDeps, productIds?: number[]): Promise<BoundProduct[]> {
  return sqlRows<BoundProduct>(
    deps,
    `SELECT p.id AS product_id, p.name, bound.binding_id, bound.supplier_id, su.name AS supplier_name, bound.upstream_product_id, bound.price_rule,
            p.pricing, p.config_options
       FROM (SELECT b.product_id, NULL::int AS binding_id, 0 AS priority, b.supplier_id, b.upstream_product_id, b.price_rule FROM product_upstream_bindings b
             UNION ALL
             SELECT a.product_id, a.id, a.priority, a.supplier_id, a.upstream_product_id, a.price_rule FROM product_upstream_alternates a) bound
       JOIN products p ON p.id = bound.product_id
       JOIN suppliers su ON su.id = bound.supplier_id
      WHERE p.deleted_at IS NULL AND bound.upstream_product_id ~ '^[1-9][0-9]{0,9}$'
        AND ($1::int[] IS NULL OR p.id = ANY($1::int[]))
      ORDER BY p.id, bound.priority`,
    [productIds ?? null],
  );
}

/** The key a binding stores a point under: the first binding's is the point, a further binding's `<point>@<id>`; a service's renewal is its own (a service belongs to one binding). */
export function bindingPointKey(bindingId: number | null, point: Pick<PricePoint, 'kind' | 'key'>): string {
  return bindingId === null || point.kind === 'renewal' ? point.key : `${point.key}@${bindingId}`;
}

/** The upstream's prices for a bound product, through the supplier plugin's `upstream.product_config`. */
export async function readUpstreamPrices(deps: DomainDeps, bound: Pick<BoundProduct, 'supplier_id' | 'upstream_product_id'>): Promise<UpstreamPrices> {
  const supplier = await getSupplier(deps, bound.supplier_id);
  return upstreamPricesOf(await readUpstreamProduct(deps, supplier, Number(bound.upstream_product_id)));
}

/** The prices of an upstream product as `upstream.product_config` answered it, in our shapes. */
export function upstreamPricesOf(upstream: { pricing: unknown; config_options: unknown }): UpstreamPrices {
  return { pricing: parsePricingMap(upstream.pricing), config_options: parseConfigOptions(upstream.config_options) };
}

/**
 * What the upstream charges now for one service's period and configuration (a service's
 * `config`: field → `{ value }`; the options the upstream has, visible, by field), by the one
 * pricing function; null when the upstream cannot price it. The renewal points and routing
 * between several bindings (domain/upstream-work/routing.ts) both read it.
 */
export function upstreamCostOf(upstream: UpstreamPrices, selection: { name: string; period: BillingPeriod; config: Record<string, unknown> | null }): Decimal | null {
  const config: Record<string, unknown> = {};
  for (const [field, chosen] of Object.entries(selection.config ?? {})) {
    const value = (chosen as { value?: unknown } | null)?.value;
    const option = upstream.config_options.find((o) => o.field === field);
    if (option && !option.hidden && (typeof value === 'number' || typeof value === 'string')) config[field] = value;
  }
  return total({ name: selection.name, pricing: upstream.pricing, config_options: upstream.config_options }, selection.period, config);
}

function total(product: PricedProduct, period: BillingPeriod, config: Record<string, unknown>): Decimal | null {
  try {
    return money(priceSelection(product, { billingPeriod: period, config, quantity: 1 }).total_amount);
  } catch (error) {
    // A selection one side cannot price (a period or sub-option it does not have) is no point.
    if (error instanceof AppError) return null;
    throw error;
  }
}

/** The selections compared per period: the defaults, then each sub-option (each tier at its lowest quantity) of each visible option. */
function selections(options: ConfigOptionItem[]): Array<{ key: string; label: string; config: Record<string, unknown> }> {
  const out: Array<{ key: string; label: string; config: Record<string, unknown> }> = [{ key: 'base', label: '默认配置', config: {} }];
  for (const option of options) {
    if (option.hidden) continue;
    for (const [index, sub] of option.sub.entries()) {
      if (isQuantityOptionType(option.option_type)) {
        const qty = Math.max(1, sub.qty_minimum ?? option.qty_minimum, option.qty_minimum);
        if (qty > option.qty_maximum) continue;
        out.push({ key: `${option.field}:${sub.id}`, label: `${option.name}：${qty}${option.unit ? ` ${option.unit}` : ''}`, config: { [option.field]: qty } });
      } else if (index > 0) {
        out.push({ key: `${option.field}:${sub.id}`, label: `${option.name}：${sub.label}`, config: { [option.field]: sub.id } });
      }
    }
  }
  return out;
}

/**
 * The price points of a product: for each period we sell that the upstream also sells, each
 * selection priced by the one pricing function (`priceSelection`) on our product and on the
 * upstream's (options match by field, sub-options by id: an import keeps the upstream's ids).
 * A selection either side cannot price is left out.
 */
export function productPricePoints(ours: PricedProduct, upstream: UpstreamPrices): PricePoint[] {
  const theirs: PricedProduct = { name: ours.name, pricing: upstream.pricing, config_options: upstream.config_options };
  const points: PricePoint[] = [];
  for (const period of BILLING_PERIODS) {
    if (ours.pricing[period] === undefined || upstream.pricing[period] === undefined) continue;
    for (const selection of selections(ours.config_options)) {
      const a = total(ours, period, selection.config);
      const b = total(theirs, period, selection.config);
      if (a === null || b === null) continue;
      points.push({
        kind: 'price',
        period,
        key: selection.key,
        label: `${billingPeriodLabel(period)}·${selection.label}`.slice(0, 191),
        serviceId: null,
        ours: formatMoney(a),
        upstream: formatMoney(b),
      });
    }
  }
  return points;
}

type LiveService = { id: number; billing_period: string; price: string; config: Record<string, unknown> | null };

/**
 * One point per live (active or suspended) service of the product bought through this binding:
 * its renewal price against what the upstream charges now for its period and configuration. A
 * service renews with the supplier holding its host, so it belongs to the further binding whose
 * supplier and upstream product its own binding (`service_upstream_bindings`) names; every other
 * service (bought through the first binding, or before its product was bound elsewhere) to the
 * first binding, as before several bindings.
 */
export async function renewalPricePoints(
  deps: DomainDeps,
  bound: Pick<BoundProduct, 'product_id' | 'name' | 'binding_id' | 'supplier_id' | 'upstream_product_id'>,
  upstream: UpstreamPrices,
): Promise<PricePoint[]> {
  const services = await sqlRows<LiveService>(
    deps,
    `SELECT s.id, s.billing_period, s.price, s.config FROM services s
       LEFT JOIN service_upstream_bindings sb ON sb.service_id = s.id
      WHERE s.product_id = $1 AND s.status IN ('active', 'suspended')
        AND CASE WHEN $2::int IS NULL
                 THEN NOT EXISTS (SELECT 1 FROM product_upstream_alternates a
                                   WHERE a.product_id = s.product_id AND a.supplier_id = sb.supplier_id AND a.upstream_product_id = sb.upstream_product_id)
                 ELSE sb.supplier_id = $3 AND sb.upstream_product_id = $4 END
      ORDER BY s.id`,
    [bound.product_id, bound.binding_id, bound.supplier_id, bound.upstream_product_id],
  );
  const points: PricePoint[] = [];
  for (const service of services) {
    if (!isBillingPeriod(service.billing_period)) continue;
    const cost = upstreamCostOf(upstream, { name: bound.name, period: service.billing_period, config: service.config });
    if (cost === null) continue;
    points.push({
      kind: 'renewal',
      period: service.billing_period,
      key: `service:${service.id}`,
      label: `服务 #${service.id} 续费（${billingPeriodLabel(service.billing_period)}）`,
      serviceId: service.id,
      ours: formatMoney(service.price),
      upstream: formatMoney(cost),
    });
  }
  return points;
}

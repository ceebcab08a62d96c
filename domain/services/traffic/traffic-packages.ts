import { userActor } from '../../../lib/actor.js';
import { validationError } from '../../../lib/errors.js';
import { formatMoney } from '../../../lib/money.js';
import type { DomainDeps } from '../../deps.js';
import { applyPriceRule, NO_MARKUP, parsePriceRule, type PriceRule } from '../../suppliers/price-rule.js';
import { requireSupplierData } from '../../suppliers/upstream-result.js';
import { requireConsoleAction } from '../console/resolve-capabilities.js';
import { findServiceView } from '../find-service.js';
import type { ServiceView } from '../service-view.js';
import { invokeServiceUpstream } from '../service-upstream.js';

export type TrafficPackageOffer = {
  package_id: number;
  name: string;
  size_gb: number;
  /** Our price (the upstream's with the product binding's markup). */
  price: string;
  /** What the upstream charges us; kept on the invoice, never shown to clients. */
  upstream_price: string;
};

type UpstreamPackage = { package_id?: unknown; name?: unknown; size_gb?: unknown; price?: unknown };

/** The markup of the service's product binding; none when the product has no (valid) rule. */
async function priceRuleOf(deps: DomainDeps, productId: number): Promise<PriceRule> {
  const binding = await deps.db.models.ProductUpstreamBinding.findByPk(productId, { attributes: ['product_id', 'price_rule'] });
  const rule = binding?.price_rule;
  if (!rule || Object.keys(rule).length === 0) return NO_MARKUP;
  try {
    return parsePriceRule(rule);
  } catch {
    return NO_MARKUP;
  }
}

/**
 * The traffic packages the upstream sells for the service's host, at our price: the upstream
 * price with the product binding's import markup applied the way it applies to option prices
 * (`percent` multiplies, `fixed` only adds to base prices, so a package keeps the upstream
 * price), rounded half-up to cents. Needs the `traffic_packages` console capability.
 */
export async function trafficPackageOffers(deps: DomainDeps, service: ServiceView, userId: number): Promise<TrafficPackageOffer[]> {
  await requireConsoleAction(deps, service, 'traffic_packages', userId);
  const result = await invokeServiceUpstream(deps, service.id, { action: 'upstream.traffic_packages', actor: userActor(userId) });
  const packages = (requireSupplierData(result)['packages'] ?? []) as UpstreamPackage[];
  const rule = await priceRuleOf(deps, service.product_id);
  return packages.flatMap((p) => {
    if (typeof p.package_id !== 'number' || typeof p.price !== 'string' || typeof p.size_gb !== 'number') return [];
    const price = applyPriceRule({ monthly: p.price }, rule, false).monthly ?? p.price;
    return [{ package_id: p.package_id, name: typeof p.name === 'string' ? p.name : `流量包 ${p.size_gb}GB`, size_gb: p.size_gb, price: formatMoney(price), upstream_price: formatMoney(p.price) }];
  });
}

export async function listTrafficPackages(deps: DomainDeps, input: { serviceId: number; userId: number }) {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  return trafficPackageOffers(deps, service, input.userId);
}

/** The price of one package for this service (42200 on package_id when the upstream does not sell it). */
export async function quoteTrafficPackage(deps: DomainDeps, input: { serviceId: number; userId: number; packageId: number }) {
  const service = await findServiceView(deps, input.serviceId, input.userId);
  const offer = (await trafficPackageOffers(deps, service, input.userId)).find((p) => p.package_id === input.packageId);
  if (!offer) throw validationError({ package_id: ['流量包不存在或已下架'] });
  return { service, offer };
}

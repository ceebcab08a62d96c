import { formatMoney, parseMoney } from '../../lib/money.js';
import { findSandboxProduct, SANDBOX_CATALOGUE, type SandboxCycle, type SandboxProduct } from './catalogue-data.js';

/**
 * Price changes made on command (`/__control/prices`): a product's member price per cycle and
 * its sub-options' monthly prices (each cycle's sub-option price is derived from it, as for the
 * catalogue's own). Every price the sandbox quotes, bills or shows goes through `pricedProduct`,
 * so a change reaches the catalogue, the product config, carts, renewals and upgrades alike.
 */
export type PriceOverride = { cycles: Partial<Record<SandboxCycle, string>>; subs: Record<string, string> };

export type PriceChange = { cycles?: Record<string, string>; subs?: Record<string, string> };

const CYCLES: readonly SandboxCycle[] = ['hour', 'monthly', 'quarterly', 'semiannually', 'annually', 'biennially', 'triennially', 'onetime'];

function isCycle(value: string): value is SandboxCycle {
  return (CYCLES as readonly string[]).includes(value);
}

/** A product with the overrides laid over its catalogue prices (the catalogue itself never changes). */
export function withPrices(product: SandboxProduct, override: PriceOverride | undefined): SandboxProduct {
  if (!override) return product;
  return {
    ...product,
    cycles: { ...product.cycles, ...override.cycles },
    configGroups: product.configGroups.map((group) => ({
      ...group,
      options: group.options.map((option) => ({
        ...option,
        subs: option.subs.map((sub) => {
          const monthly = override.subs[String(sub.id)];
          return monthly === undefined ? sub : { ...sub, monthly };
        }),
      })),
    })),
  };
}

export function pricedProduct(prices: Map<number, PriceOverride>, productId: number): SandboxProduct | undefined {
  const product = findSandboxProduct(productId);
  return product ? withPrices(product, prices.get(productId)) : undefined;
}

export function pricedCatalogue(prices: Map<number, PriceOverride>) {
  return SANDBOX_CATALOGUE.map((group) => ({ ...group, products: group.products.map((p) => withPrices(p, prices.get(p.id))) }));
}

/**
 * Checks and applies a change: known cycles of the product (an amount, `-1` switches a cycle
 * off) and sub-option ids of the product (a non-negative monthly amount). Throws (nothing
 * changed) on an unknown product, cycle or sub-option or a bad amount.
 */
export function changePrices(prices: Map<number, PriceOverride>, productId: number, change: PriceChange): void {
  const product = findSandboxProduct(productId);
  if (!product) throw new Error(`no such product: ${productId}`);
  const next: PriceOverride = structuredClone(prices.get(productId) ?? { cycles: {}, subs: {} });
  for (const [cycle, amount] of Object.entries(change.cycles ?? {})) {
    if (!isCycle(cycle) || product.cycles[cycle] === undefined) throw new Error(`product ${productId} has no cycle ${cycle}`);
    const value = amount.trim() === '-1' || amount.trim() === '-1.00' ? '-1.00' : parseMoney(amount) && !amount.trim().startsWith('-') ? formatMoney(amount.trim()) : null;
    if (value === null) throw new Error(`invalid price for ${cycle}: ${amount}`);
    next.cycles[cycle] = cycle === 'hour' && value !== '-1.00' ? Number(value).toFixed(4) : value;
  }
  const subIds = new Set(product.configGroups.flatMap((g) => g.options.flatMap((o) => o.subs.map((s) => String(s.id)))));
  for (const [subId, amount] of Object.entries(change.subs ?? {})) {
    if (!subIds.has(subId)) throw new Error(`product ${productId} has no sub-option ${subId}`);
    if (!parseMoney(amount) || amount.trim().startsWith('-')) throw new Error(`invalid monthly price for sub-option ${subId}: ${amount}`);
    next.subs[subId] = formatMoney(amount.trim());
  }
  prices.set(productId, next);
}

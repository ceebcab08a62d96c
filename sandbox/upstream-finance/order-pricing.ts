import { formatMoney, money } from '../../lib/money.js';
import type { SandboxOption, SandboxProduct } from './catalogue-data.js';
import { subOptionPricing } from './pricing.js';

export function isQuantityOption(option: SandboxOption): boolean {
  return option.type === 4 || (option.type >= 15 && option.type <= 19);
}

/** A cycle the product sells (present and not switched off with a negative price). */
export function isCycleOffered(product: SandboxProduct, cycle: string): boolean {
  const amount = (product.cycles as Record<string, string | undefined>)[cycle];
  return amount !== undefined && !money(amount).isNegative();
}

/** Member price of one cycle with the chosen options (option id → sub-option id or quantity). */
export function priceOrder(product: SandboxProduct, cycle: string, config: Record<string, string>): string {
  let total = money((product.cycles as Record<string, string>)[cycle] ?? '0');
  for (const group of product.configGroups) {
    for (const option of group.options) {
      const chosen = config[String(option.id)];
      if (chosen === undefined) continue;
      const sub = isQuantityOption(option) ? option.subs[0] : option.subs.find((s) => String(s.id) === chosen);
      if (!sub) continue;
      const unit = money(subOptionPricing(product, sub.monthly, 'member')[cycle] ?? '0');
      total = total.plus(isQuantityOption(option) ? unit.times(Number(chosen)) : unit);
    }
  }
  return formatMoney(total);
}

import { formatMoney, money } from '../../lib/money.js';
import { VISITOR_MARKUP, type SandboxCycle, type SandboxProduct } from './catalogue-data.js';

export type PriceAudience = 'member' | 'visitor';

export const CYCLE_LABELS: Record<SandboxCycle, string> = {
  hour: '小时',
  monthly: '月付',
  quarterly: '季付',
  semiannually: '半年付',
  annually: '年付',
  biennially: '两年付',
  triennially: '三年付',
  onetime: '一次性',
};

/** How many months' worth a sub-option's monthly price costs in each cycle (with discounts). */
const CYCLE_FACTORS: Record<SandboxCycle, string> = {
  hour: '0.001388888',
  monthly: '1',
  quarterly: '3',
  semiannually: '5.7',
  annually: '10.2',
  biennially: '19.2',
  triennially: '27',
  onetime: '1',
};

function markup(amount: string, audience: PriceAudience): string {
  return audience === 'member' ? amount : formatMoney(money(amount).times(VISITOR_MARKUP));
}

/** The product's own price for a cycle, as the upstream prints it ("59.00", "-1.00" = off). */
export function productCyclePrice(amount: string, audience: PriceAudience): string {
  if (money(amount).isNegative()) return '-1.00';
  if (amount.split('.')[1]?.length === 4) {
    const value = audience === 'member' ? money(amount) : money(amount).times(VISITOR_MARKUP);
    return value.toFixed(4);
  }
  return markup(amount, audience);
}

/** Sub-option prices per offered cycle; the upstream prints them with four fraction digits. */
export function subOptionPricing(product: SandboxProduct, monthly: string, audience: PriceAudience): Record<string, string> {
  const pricing: Record<string, string> = {};
  for (const [cycle, productPrice] of Object.entries(product.cycles) as [SandboxCycle, string][]) {
    if (money(productPrice).isNegative()) continue;
    const base = money(monthly).times(CYCLE_FACTORS[cycle]);
    const value = audience === 'member' ? base : base.times(VISITOR_MARKUP);
    pricing[cycle] = value.toFixed(4);
  }
  return pricing;
}

/** The lowest offered non-hourly price, shown as "from" in the catalogue. */
export function startingPrice(product: SandboxProduct, audience: PriceAudience): { cycle: SandboxCycle; price: string } | null {
  for (const cycle of ['monthly', 'quarterly', 'semiannually', 'annually', 'biennially', 'triennially', 'onetime'] as const) {
    const amount = product.cycles[cycle];
    if (amount !== undefined && !money(amount).isNegative()) return { cycle, price: markup(amount, audience) };
  }
  return null;
}

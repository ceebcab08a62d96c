import { notFound } from '../../lib/errors.js';
import { loadListedProduct } from '../catalogue/site-cache.js';
import { quoteListedProduct, type ProductQuote } from '../catalogue/quote.js';
import type { DomainDeps } from '../deps.js';
import { assertNotHeldBelowCost } from '../economics/hold.js';
import { priceDiscounts, type Discounted } from './discounts.js';

/** A quote with its discounts: the lines include the discount lines; `total_amount` is what the invoice will charge. */
export type DiscountedQuote = ProductQuote & {
  subtotal_amount: string;
  discount_amount: string;
  coupon_code: string | null;
  member_level: Discounted['member_level'];
};

/** An anonymous quote in the same shape (no discount). */
export function undiscountedQuote(quote: ProductQuote): DiscountedQuote {
  return { ...quote, subtotal_amount: quote.total_amount, discount_amount: '0.00', coupon_code: null, member_level: null };
}

export function withDiscounts(quote: ProductQuote, priced: Discounted): DiscountedQuote {
  return {
    ...quote,
    lines: priced.lines,
    subtotal_amount: priced.subtotal_amount,
    discount_amount: priced.discount_amount,
    total_amount: priced.total_amount,
    coupon_code: priced.coupon?.code ?? null,
    member_level: priced.member_level,
  };
}

/**
 * The quote a signed-in user sees: the catalogue's pricing, then marketing's `priceDiscounts`
 * (member level, coupon) — the same two steps `createPurchaseInvoice` takes in its
 * transaction, so the quote's total is the invoice's amount.
 */
export async function quoteForUser(
  deps: DomainDeps,
  input: { userId: number | null; productId: number; billingPeriod: unknown; config: unknown; quantity: unknown; couponCode?: string | null | undefined },
): Promise<DiscountedQuote> {
  const product = await loadListedProduct(deps, input.productId);
  if (!product) throw notFound('商品不存在或已下架');
  await assertNotHeldBelowCost(deps, product);
  const quote = quoteListedProduct(product, { billingPeriod: input.billingPeriod, config: input.config, quantity: input.quantity });
  const priced = await priceDiscounts(deps, { userId: input.userId, scene: 'purchase', productId: product.id, lines: quote.lines, couponCode: input.couponCode ?? null });
  return withDiscounts(quote, priced);
}

import { formatMoney, sumMoney } from '../../../lib/money.js';
import { billingPeriodLabel } from '../../catalogue/billing-periods.js';
import { quoteProduct } from '../../catalogue/quote.js';
import { reserveCouponUse } from '../../marketing/coupon-uses.js';
import { priceDiscounts } from '../../marketing/discounts.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import { inSequelizeTransaction } from '../../../db/sql.js';
import { insertInvoice, type InsertedInvoice } from './insert-invoice.js';

export type PurchaseRequest = { userId: number; productId: number; billingPeriod: unknown; config: unknown; quantity: unknown; couponCode?: string | null };

/**
 * A purchase invoice, priced by the catalogue's `quoteProduct` inside the same transaction,
 * so quote and invoice can never disagree: the quote's lines become the items, its total the
 * amount. The order (new_purchase, pending) records the product, period, quantity and the
 * chosen configuration; the payload keeps what fulfilment needs (one service per instance,
 * each priced at the quote's per-instance amount for renewals, before discounts). The member
 * discount and the coupon come from the same marketing entry the quote uses (`priceDiscounts`):
 * each is an item with a negative amount, and the coupon's use is reserved in this transaction.
 */
export async function createPurchaseInvoice(deps: DomainDeps, request: PurchaseRequest, audit: Audit): Promise<InsertedInvoice> {
  return inSequelizeTransaction(deps, async (transaction) => {
    const quote = await quoteProduct(
      deps,
      { productId: request.productId, billingPeriod: request.billingPeriod, config: request.config, quantity: request.quantity },
      { transaction },
    );
    const unitPrice = formatMoney(sumMoney(quote.lines.map((l) => l.unit_amount)));
    const priced = await priceDiscounts(
      deps,
      { userId: request.userId, scene: 'purchase', productId: quote.product_id, lines: quote.lines, couponCode: request.couponCode ?? null },
      transaction,
    );
    const subject = `${quote.product_name}（${billingPeriodLabel(quote.billing_period)}）${quote.quantity > 1 ? ` × ${quote.quantity}` : ''}`;
    const inserted = await insertInvoice(
      deps,
      {
        userId: request.userId,
        type: 'purchase',
        status: 'unpaid',
        subject,
        amount: priced.total_amount,
        payload: {
          product_id: quote.product_id,
          product_name: quote.product_name,
          product_type: quote.product_type,
          billing_period: quote.billing_period,
          quantity: quote.quantity,
          config: quote.config,
          unit_price: unitPrice,
          ...(priced.coupon ? { coupon_code: priced.coupon.code } : {}),
          ...(priced.member_level ? { member_level_id: priced.member_level.id } : {}),
        },
        items: priced.lines.map((l) => ({ key: l.key, description: l.label, unitAmount: l.unit_amount, quantity: l.quantity, amount: l.amount })),
        order: {
          productId: quote.product_id,
          billingPeriod: quote.billing_period,
          quantity: quote.quantity,
          config: quote.config,
        },
        audit,
      },
      transaction,
    );
    if (priced.coupon) {
      await reserveCouponUse(deps, { coupon: priced.coupon, userId: request.userId, invoiceId: inserted.invoice.id, scene: 'purchase' }, transaction);
    }
    return inserted;
  });
}

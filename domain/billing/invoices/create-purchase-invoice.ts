import { formatMoney, sumMoney } from '../../../lib/money.js';
import { billingPeriodLabel } from '../../catalogue/billing-periods.js';
import { quoteProduct } from '../../catalogue/quote.js';
import type { DomainDeps } from '../../deps.js';
import type { Audit } from '../audit.js';
import { inSequelizeTransaction } from '../../../db/sql.js';
import { insertInvoice, type InsertedInvoice } from './insert-invoice.js';

export type PurchaseRequest = { userId: number; productId: number; billingPeriod: unknown; config: unknown; quantity: unknown };

/**
 * A purchase invoice, priced by the catalogue's `quoteProduct` inside the same transaction,
 * so quote and invoice can never disagree: the quote's lines become the items, its total the
 * amount. The order (new_purchase, pending) records the product, period, quantity and the
 * chosen configuration; the payload keeps what fulfilment needs (one service per instance,
 * each priced at the quote's per-instance amount for renewals).
 */
export async function createPurchaseInvoice(deps: DomainDeps, request: PurchaseRequest, audit: Audit): Promise<InsertedInvoice> {
  return inSequelizeTransaction(deps, async (transaction) => {
    const quote = await quoteProduct(
      deps,
      { productId: request.productId, billingPeriod: request.billingPeriod, config: request.config, quantity: request.quantity },
      { transaction },
    );
    const unitPrice = formatMoney(sumMoney(quote.lines.map((l) => l.unit_amount)));
    const subject = `${quote.product_name}（${billingPeriodLabel(quote.billing_period)}）${quote.quantity > 1 ? ` × ${quote.quantity}` : ''}`;
    return insertInvoice(
      deps,
      {
        userId: request.userId,
        type: 'purchase',
        status: 'unpaid',
        subject,
        amount: quote.total_amount,
        payload: {
          product_id: quote.product_id,
          product_name: quote.product_name,
          product_type: quote.product_type,
          billing_period: quote.billing_period,
          quantity: quote.quantity,
          config: quote.config,
          unit_price: unitPrice,
        },
        items: quote.lines.map((l) => ({ key: l.key, description: l.label, unitAmount: l.unit_amount, quantity: l.quantity, amount: l.amount })),
        order: {
          type: 'new_purchase',
          productId: quote.product_id,
          billingPeriod: quote.billing_period,
          quantity: quote.quantity,
          config: quote.config,
        },
        audit,
      },
      transaction,
    );
  });
}

import { AppError, ErrorCode, notFound, validationError } from '../../../lib/errors.js';
import { reserveCouponUse } from '../../marketing/coupon-uses.js';
import { type AppliedCoupon, type PricedLine, priceDiscounts } from '../../marketing/discounts.js';
import { money } from '../../../lib/money.js';
import type { Audit } from '../../billing/audit.js';
import { cancelInvoice } from '../../billing/invoices/cancel-invoice.js';
import { insertInvoice } from '../../billing/invoices/insert-invoice.js';
import { settleInvoice } from '../../billing/payments/settle-invoice.js';
import { inTransaction, sqlOne, type Tx } from '../../../db/sql.js';
import type { DomainDeps } from '../../deps.js';
import { findOpenServiceOrder, findUnpaidServiceInvoice } from '../../upstream-work/service-order/open-orders.js';
import { downgradeCredit, invoicedAmount, shanghaiDate } from './proration.js';
import { loadUpgradeContext, type PricedChange, priceChange, type UpgradeContext } from './upgrade-pricing.js';
import type { InvoiceRecord } from '../../../db/models/billing.js';

export type UpgradeQuote = PricedChange & {
  /** What the invoice asks: the prorated difference (never below 0.00) after the member and coupon discounts. */
  amount: string;
  /** The member level's and the coupon's discount on the charge (0.00 for a downgrade). */
  discount_amount: string;
  credit_to_balance: string;
  direction: 'upgrade' | 'downgrade';
  /** The invoice's lines: the change, then the discount lines. */
  lines: PricedLine[];
  coupon: AppliedCoupon | null;
};

type ChangeInput = { serviceId: number; userId: number; config: Record<string, unknown>; couponCode?: string | null | undefined };

/**
 * The priced change with the discounts of the one pricing entry (`priceDiscounts`, scene
 * `upgrade`): the member level's percent, then the coupon, on what the upgrade charges. A
 * downgrade charges nothing, so it takes no discount (a coupon on it is refused like any coupon
 * below its minimum); its credit to the balance is the undiscounted difference.
 */
async function quoteOf(deps: DomainDeps, ctx: UpgradeContext, priced: PricedChange, input: ChangeInput, tx?: Tx): Promise<UpgradeQuote> {
  const direction = money(priced.proration.difference).isNegative() ? 'downgrade' : 'upgrade';
  const charged = invoicedAmount(priced.proration);
  const what = priced.changes.map((c) => `${c.name}：${c.from} → ${c.to}`).join('；');
  const line: PricedLine = {
    key: 'upgrade',
    label: `${what}（剩余 ${priced.proration.days_left}/${priced.proration.days_in_period} 天）`.slice(0, 255),
    unit_amount: charged,
    quantity: 1,
    amount: charged,
  };
  const discounted =
    direction === 'upgrade'
      ? await priceDiscounts(deps, { userId: input.userId, scene: 'upgrade', productId: ctx.product.id, lines: [line], couponCode: input.couponCode ?? null }, tx)
      : null;
  if (direction === 'downgrade' && input.couponCode?.trim()) throw validationError({ coupon_code: ['降级不产生费用，不能使用优惠券'] });
  return {
    ...priced,
    amount: discounted ? discounted.total_amount : charged,
    discount_amount: discounted ? discounted.discount_amount : '0.00',
    credit_to_balance: downgradeCredit(priced.proration),
    direction,
    lines: discounted ? discounted.lines : [line],
    coupon: discounted ? discounted.coupon : null,
  };
}

/** `POST …/upgrade/quote`: the priced change, nothing written. */
export async function quoteUpgrade(deps: DomainDeps, input: ChangeInput, now: Date = new Date()): Promise<UpgradeQuote> {
  const ctx = await loadUpgradeContext(deps, input.serviceId, input.userId);
  return quoteOf(deps, ctx, priceChange(ctx, input.config, now), input);
}

/** Refuses a change while another change, or a renewal (priced at the old locked price), is pending or running. */
async function assertNothingPending(deps: DomainDeps, serviceId: number, tx: Tx): Promise<void> {
  const unpaid = await findUnpaidServiceInvoice(deps, serviceId, 'upgrade', tx);
  if (unpaid) throw new AppError(ErrorCode.UPGRADE_PENDING, '该服务已有未支付的配置变更账单，请先支付或取消', { invoice_id: unpaid.id, invoice_no: unpaid.invoice_no });
  const open = await findOpenServiceOrder(deps, serviceId, 'upgrade', tx);
  if (open) throw new AppError(ErrorCode.UPGRADE_PENDING, '该服务的上一次配置变更仍在处理中，请稍后再试', { invoice_id: open.id, invoice_no: open.invoice_no });
  const renewal = (await findUnpaidServiceInvoice(deps, serviceId, 'renew', tx)) ?? (await findOpenServiceOrder(deps, serviceId, 'renew', tx));
  if (renewal) {
    throw new AppError(ErrorCode.UPGRADE_PENDING, '该服务有未完成的续费账单，请先完成或取消续费后再升降级配置', { invoice_id: renewal.id, invoice_no: renewal.invoice_no });
  }
}

/**
 * `POST …/upgrade`: an `upgrade` invoice for the priced change, under the service's row lock (one
 * pending change per service: an unpaid or running change, or a renewal, refuses with 40960;
 * the partial UNIQUE index `invoices_one_unpaid_upgrade` backs it). An upgrade's invoice asks for
 * the prorated difference and is paid through `pay/*`; a downgrade's invoice is 0.00 and settled
 * at once (channel `free`), its credit going to the balance only after the upstream confirmed.
 * Once paid, `upgrade:<invoice_no>` changes the upstream host exactly once and then the service.
 */
export async function createUpgradeInvoice(
  deps: DomainDeps,
  input: ChangeInput,
  audit: Audit,
  now: Date = new Date(),
): Promise<{ invoice: InvoiceRecord; quote: UpgradeQuote }> {
  const result = await inTransaction(deps, async (tx) => {
    const ctx = await loadUpgradeContext(deps, input.serviceId, input.userId, tx);
    await assertNothingPending(deps, ctx.service.id, tx);
    const quote = await quoteOf(deps, ctx, priceChange(ctx, input.config, now), input, tx);
    const name = ctx.service.product_name || ctx.product.name;
    const label = quote.direction === 'upgrade' ? '升级' : '降级';
    const { invoice } = await insertInvoice(
      deps,
      {
        userId: ctx.service.user_id,
        type: 'upgrade',
        status: 'unpaid',
        subject: `${name} 配置${label}`,
        amount: quote.amount,
        serviceId: ctx.service.id,
        dueAt: ctx.dueAt,
        payload: {
          service_id: ctx.service.id,
          direction: quote.direction,
          upgrade_config: quote.config,
          changes: quote.changes,
          proration: quote.proration,
          credit_to_balance: quote.credit_to_balance,
          quoted_on: shanghaiDate(now),
          ...(quote.coupon ? { coupon_code: quote.coupon.code } : {}),
        },
        items: quote.lines.map((l) => ({ key: l.key, description: l.label, unitAmount: l.unit_amount, quantity: l.quantity, amount: l.amount })),
        order: { productId: ctx.product.id, serviceId: ctx.service.id, billingPeriod: ctx.period, quantity: 1, config: quote.config },
        audit,
      },
      tx,
    );
    if (quote.coupon) await reserveCouponUse(deps, { coupon: quote.coupon, userId: ctx.service.user_id, invoiceId: invoice.id, scene: 'upgrade' }, tx);
    if (money(quote.amount).isZero()) {
      const settled = await settleInvoice(deps, invoice, { balance: money(0), thirdParty: money(0), channel: 'free', paymentId: null }, audit, tx);
      return { invoice: settled.invoice, quote };
    }
    return { invoice, quote };
  });
  // A downgrade settled here: its outbox row (due at once) has the relay start `upgrade:<invoice_no>`.
  return result;
}

/**
 * `POST …/upgrade/cancel`: withdraws the service's unpaid change (the money domain's own cancel:
 * refused while a QR payment is pending). Nothing pending: 40400. A paid change is no longer the
 * user's to cancel (an admin cancels it with a refund if the upstream refuses it).
 */
export async function cancelPendingUpgrade(deps: DomainDeps, input: { serviceId: number; userId: number }): Promise<InvoiceRecord> {
  const unpaid = await sqlOne<{ id: number }>(
    deps,
    `SELECT i.id FROM invoices i JOIN services s ON s.id = i.service_id
      WHERE i.service_id = $1 AND s.user_id = $2 AND i.type = 'upgrade' AND i.status = 'unpaid' LIMIT 1`,
    [input.serviceId, input.userId],
  );
  if (!unpaid) throw notFound('该服务没有待支付的配置变更');
  return cancelInvoice(deps, { userId: input.userId, invoiceId: unpaid.id });
}

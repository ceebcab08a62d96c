import type { ServiceStatus } from '../../../db/models/service.js';
import { AppError, ErrorCode, notFound, validationError } from '../../../lib/errors.js';
import type { Audit } from '../../billing/audit.js';
import { insertInvoice } from '../../billing/invoices/insert-invoice.js';
import { inTransaction, sqlOne } from '../../../db/sql.js';
import { billingPeriodLabel, isBillingPeriod } from '../../catalogue/billing-periods.js';
import type { DomainDeps } from '../../deps.js';
import { findOpenServiceOrder, findUnpaidServiceInvoice } from '../../upstream-work/service-order/open-orders.js';
import { SERVICE_STATUS_LABELS } from '../service-labels.js';
import { renewalOptions } from './renewal-options.js';
import { RENEWABLE_STATUSES } from './renewal-rules.js';
import { INVOICE_COLUMNS, type InvoiceRecord } from '../../../db/models/billing.js';
import { reserveCouponUse } from '../../marketing/coupon-uses.js';
import { priceDiscounts } from '../../marketing/discounts.js';

export type RenewalSource = 'client' | 'scheduler';

export type RenewalRequest = { serviceId: number; billingPeriod: string; source: RenewalSource; couponCode?: string | null };

export type RenewalInvoice = { invoice: InvoiceRecord; created: boolean };

type LockedService = {
  id: number;
  user_id: number;
  product_id: number;
  status: ServiceStatus;
  billing_period: string;
  price: string;
  config: Record<string, { value?: unknown }>;
  next_due_at: Date | null;
  product_name: string;
};

/** The scheduler's idempotency key: one invoice per service and due date (UNIQUE, migration 0009). */
export function renewalScheduleKey(serviceId: number, nextDueAt: Date | null): string {
  return `renewal:${serviceId}:${nextDueAt ? nextDueAt.toISOString() : 'none'}`;
}

/**
 * A `renew` invoice for a service (unpaid; paid through the usual `pay/*` paths; once paid,
 * `renew:<invoice_no>` renews upstream and moves the due date). Under the service's row lock:
 * - the service must be renewable: active or suspended, not one-time (40942); the period one of
 *   `renewalOptions` (42200 on billing_period), priced as the preview shows;
 * - one unpaid renewal invoice per service: the same period answers the existing one
 *   (`created: false`), another period is 40940 (pay or cancel it first);
 * - a paid renewal still being fulfilled refuses a new one (40941);
 * - `source: 'scheduler'` never makes a second invoice and never fails for those cases: it
 *   answers an unpaid renewal of any period (the user's choice wins), else the renewal in
 *   progress, else the invoice it already made for the current due date (also when the user
 *   cancelled it: a cancelled reminder is not made again for the same due date).
 */
export async function createRenewalInvoice(deps: DomainDeps, request: RenewalRequest, audit: Audit): Promise<RenewalInvoice> {
  return inTransaction(deps, async (tx) => {
    const service = await sqlOne<LockedService>(
      deps,
      `SELECT id, user_id, product_id, status, billing_period, price, config, next_due_at, product_name FROM services WHERE id = $1 FOR UPDATE`,
      [request.serviceId],
      tx,
    );
    if (!service) throw notFound('服务不存在');
    if (service.billing_period === 'onetime') throw new AppError(ErrorCode.SERVICE_NOT_RENEWABLE, '一次性付费的服务无需续费');
    if (!RENEWABLE_STATUSES.includes(service.status)) {
      throw new AppError(ErrorCode.SERVICE_NOT_RENEWABLE, `服务${SERVICE_STATUS_LABELS[service.status] ?? '当前状态'}，不可续费`, { status: service.status });
    }
    const period = request.billingPeriod;
    if (!isBillingPeriod(period) || period === 'onetime') throw validationError({ billing_period: ['续费周期无效'] });

    const unpaid = await findUnpaidServiceInvoice(deps, service.id, 'renew', tx);
    if (unpaid) {
      const unpaidPeriod = String(unpaid.payload['billing_period'] ?? '');
      if (unpaidPeriod === period || request.source === 'scheduler') return { invoice: unpaid, created: false };
      throw new AppError(
        ErrorCode.RENEWAL_INVOICE_EXISTS,
        `该服务已有未支付的续费账单（${isBillingPeriod(unpaidPeriod) ? billingPeriodLabel(unpaidPeriod) : unpaidPeriod}），请先支付或取消后再选择其他周期`,
        { invoice_id: unpaid.id, invoice_no: unpaid.invoice_no, billing_period: unpaidPeriod },
      );
    }
    const open = await findOpenServiceOrder(deps, service.id, 'renew', tx);
    if (open) {
      if (request.source === 'scheduler') return { invoice: open, created: false };
      throw new AppError(ErrorCode.SERVICE_ORDER_IN_PROGRESS, '该服务的上一笔续费仍在处理中，请稍后再试', { invoice_id: open.id, invoice_no: open.invoice_no });
    }
    const scheduleKey = request.source === 'scheduler' ? renewalScheduleKey(service.id, service.next_due_at) : null;
    if (scheduleKey) {
      const made = await sqlOne<InvoiceRecord>(
        deps,
        `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE service_id = $1 AND type = 'renew' AND payload->>'schedule_key' = $2`,
        [service.id, scheduleKey],
        tx,
      );
      if (made) return { invoice: made, created: false };
    }
    const option = (await renewalOptions(deps, service, tx)).find((o) => o.billing_period === period);
    if (!option) throw validationError({ billing_period: ['该服务不能按此周期续费'] });

    const label = billingPeriodLabel(period);
    const name = service.product_name || '服务';
    // Member discount (and the client's coupon) through marketing's entry of the one pricing function.
    const priced = await priceDiscounts(
      deps,
      {
        userId: service.user_id,
        scene: 'renewal',
        productId: service.product_id,
        lines: [{ key: 'renew', label: `${name}（${label}）续费 ${option.months} 个月`, unit_amount: option.amount, quantity: 1, amount: option.amount }],
        couponCode: request.source === 'client' ? (request.couponCode ?? null) : null,
      },
      tx,
    );
    const { invoice } = await insertInvoice(
      deps,
      {
        userId: service.user_id,
        type: 'renew',
        status: 'unpaid',
        subject: `${name} 续费（${label}）`,
        amount: priced.total_amount,
        serviceId: service.id,
        dueAt: service.next_due_at,
        payload: {
          service_id: service.id,
          billing_period: period,
          months: option.months,
          renews_from: service.next_due_at ? service.next_due_at.toISOString() : null,
          source: request.source,
          ...(scheduleKey ? { schedule_key: scheduleKey } : {}),
          ...(priced.coupon ? { coupon_code: priced.coupon.code } : {}),
        },
        items: priced.lines.map((l) => ({ key: l.key, description: l.label, unitAmount: l.unit_amount, quantity: l.quantity, amount: l.amount })),
        order: { productId: service.product_id, serviceId: service.id, billingPeriod: period, quantity: 1, config: service.config },
        audit,
      },
      tx,
    );
    if (priced.coupon) await reserveCouponUse(deps, { coupon: priced.coupon, userId: service.user_id, invoiceId: invoice.id, scene: 'renewal' }, tx);
    return { invoice, created: true };
  });
}

import type { DomainDeps } from '../../deps.js';
import type { PreparedProvisioning } from './prepare.js';
import { callSupplier, UpstreamStepError } from '../../suppliers/supplier-call.js';
import { type SentMark, sendOnce } from '../../suppliers/send-once.js';
import type { StepJournal } from '../../suppliers/step-journal.js';
import { sqlRows, statement } from '../../../db/sql.js';
import { hostTakenError } from './host-taken.js';
import { provisioningWork } from '../kinds.js';
import { payUpstreamBillOnce } from '../pay-bill.js';
import { workJournal } from '../record.js';
import { firstAmount } from '../../economics/upstream-costs.js';
import { recordBillPaid } from '../cost.js';

export type UpstreamPurchase = Extract<PreparedProvisioning, { kind: 'upstream' }>;

/**
 * An upstream order of the service: its bill, its host, whether the bill is paid, and the bill's
 * amount as the upstream answered it (absent in histories recorded before issue #29).
 */
export type UpstreamOrder = { invoiceId: number; hostId: number; orderId: number | null; paid: boolean; amount?: string | null };

function readOrder(existing: unknown): UpstreamOrder | null {
  if (typeof existing !== 'object' || existing === null) return null;
  const e = existing as Record<string, unknown>;
  const hostId = Number(e['host_id']);
  const invoiceId = Number(e['invoice_id']);
  if (!Number.isSafeInteger(hostId) || hostId <= 0 || !Number.isSafeInteger(invoiceId) || invoiceId <= 0) return null;
  const orderId = Number(e['order_id']);
  return { invoiceId, hostId, orderId: Number.isSafeInteger(orderId) && orderId > 0 ? orderId : null, paid: e['paid'] === true, amount: firstAmount(e['amount']) };
}

const REMEMBER_ORDER = statement(
  `UPDATE service_upstream_bindings SET upstream_order_id = $2, upstream_invoice_id = $3, upstream_host_id = $4,
          upstream_amount = COALESCE($5::numeric, upstream_amount), updated_at = now()
    WHERE service_id = $1 RETURNING service_id`,
);

/** The order and host on the service's upstream binding, as soon as they are known (idempotent). */
async function rememberOrder(deps: DomainDeps, serviceId: number, order: UpstreamOrder): Promise<void> {
  try {
    await sqlRows(deps, REMEMBER_ORDER, [serviceId, order.orderId, order.invoiceId, order.hostId, order.amount ?? null]);
  } catch (err) {
    throw await hostTakenError(deps, serviceId, order.hostId, err);
  }
}

/** `cart/clear` with the downstream reference doubles as the probe: does the upstream already have our order? */
export async function probeUpstreamOrder(deps: DomainDeps, p: Pick<UpstreamPurchase, 'serviceId' | 'supplierId' | 'downstream' | 'traceId'>): Promise<UpstreamOrder | null> {
  const data = await callSupplier(deps, p.supplierId, 'upstream.purchase_probe', { downstream: p.downstream }, { traceId: p.traceId });
  const order = readOrder(data['existing']);
  if (order) await rememberOrder(deps, p.serviceId, order);
  return order;
}

/** Proactive login before a provisioning run: expired tokens make some reads answer as a visitor. */
export async function loginUpstream(deps: DomainDeps, p: UpstreamPurchase): Promise<void> {
  await callSupplier(deps, p.supplierId, 'upstream.login_check', {}, { traceId: p.traceId });
}

/** The service's sealed root password (opened only to fill the cart). */
const SEALED_PASSWORD = statement('SELECT password_sealed FROM services WHERE id = $1');

/**
 * The cart step: probe first (an order for our reference means a previous attempt already bought:
 * continue with it), otherwise fill the reference's cart with the product, period, options,
 * hostname and the service's root password (read here, never passed through the workflow).
 */
export async function fillUpstreamCart(deps: DomainDeps, p: UpstreamPurchase): Promise<UpstreamOrder | null> {
  const existing = await probeUpstreamOrder(deps, p);
  if (existing) return existing;
  const [service] = await sqlRows<{ password_sealed: string }>(deps, SEALED_PASSWORD, [p.serviceId]);
  const password = service?.password_sealed ? deps.secretBox.open(service.password_sealed) : undefined;
  const data = await callSupplier(deps, p.supplierId, 'upstream.purchase_cart', {
    downstream: p.downstream,
    product_id: p.upstreamProductId,
    billing_period: p.billingPeriod,
    config: p.config,
    hostname: p.hostname,
    ...(password ? { password } : {}),
  }, { traceId: p.traceId });
  const order = readOrder(data['existing']);
  if (order) await rememberOrder(deps, p.serviceId, order);
  return order;
}

/** The provisioning's step history at one stage (service events of kind `provision`). */
function provisionJournal(deps: DomainDeps, p: UpstreamPurchase, stage: string): StepJournal {
  return workJournal(deps, provisioningWork(p.serviceId), p.traceId, stage);
}

/** The mark of a committing provisioning step, on the service's upstream binding. */
function bindingMark(serviceId: number, column: 'checkout_attempted_at' | 'pay_attempted_at'): SentMark {
  return { table: 'service_upstream_bindings', key: 'service_id', id: serviceId, column };
}

/**
 * The checkout step, sent once (domain/suppliers/send-once.ts). When it has been sent before (its
 * outcome unknown) it reconciles first: probe, continue with an order that exists, otherwise fill
 * the cart again and settle. The upstream also recognises a repeated reference, so even a settle
 * that raced a lost answer does not buy twice.
 */
export async function checkoutUpstreamOrder(deps: DomainDeps, p: UpstreamPurchase): Promise<UpstreamOrder> {
  const { value } = await sendOnce(deps, {
    mark: bindingMark(p.serviceId, 'checkout_attempted_at'),
    reconcile: () => fillUpstreamCart(deps, p),
    journal: {
      record: provisionJournal(deps, p, 'checkout'),
      found: (order) => `上游已有本服务的订单（账单 #${order.invoiceId}，主机 #${order.hostId}），沿用，不再重复下单`,
    },
    send: async () => {
      const data = await callSupplier(deps, p.supplierId, 'upstream.purchase_checkout', { downstream: p.downstream }, { traceId: p.traceId });
      const order = readOrder({ ...data, paid: false });
      if (!order) throw new UpstreamStepError('ambiguous', 'unexpected_response', '上游下单结果缺少账单或主机编号');
      await rememberOrder(deps, p.serviceId, order);
      return order;
    },
  });
  return value;
}

/**
 * The upstream pay step, sent once: the kernel's one payment of an upstream bill
 * (`payUpstreamBillOnce`: a payment sent before is checked first, a bill still unpaid after a
 * plain answer is retried, a voided bill is a permanent failure). Once paid (or found paid), the
 * payment and what it cost are recorded together, once, as for every kind (`recordBillPaid`,
 * ../cost.ts): the amount of the pay or check answer, else the settle answer's.
 */
export async function payUpstreamOrder(deps: DomainDeps, p: UpstreamPurchase, order: UpstreamOrder): Promise<void> {
  let answered: string | null = null;
  let via: 'paid' | 'reconciled' = 'reconciled';
  if (!order.paid) {
    const paid = await payUpstreamBillOnce(deps, {
      call: { supplierId: p.supplierId, traceId: p.traceId },
      billId: order.invoiceId,
      mark: bindingMark(p.serviceId, 'pay_attempted_at'),
      journal: provisionJournal(deps, p, 'upstream_pay'),
      voidHint: '请核对后重试或取消',
    });
    answered = paid.amount;
    via = paid.via;
  }
  await recordBillPaid(deps, provisioningWork(p.serviceId), {
    call: { supplierId: p.supplierId, traceId: p.traceId },
    billId: order.invoiceId,
    answered: firstAmount(answered, order.amount),
    via,
  });
}

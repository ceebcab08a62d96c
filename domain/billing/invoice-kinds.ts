/**
 * Invoice kinds: what each invoice type is, in one table (docs/billing.md "Invoice kinds"). The
 * code reads its rows (`INVOICE_KINDS[invoice.type].refundable`) and SQL receives the types with
 * a property as an array parameter (`type = ANY($n::text[])`, `invoiceTypesWhere('earnsCommission')`),
 * so no list of types is written anywhere else. A new type in `INVOICE_TYPES` (db/models/billing.ts)
 * does not compile until it has its row here.
 */
import { INVOICE_TYPES, type InvoiceType, type OrderType, type RechargeScene } from '../../db/models/billing.js';

/**
 * What fulfils a paid invoice: `provisioning` (its services are provisioned, `provision:<service_id>`),
 * `service_order` (its service order, `dispatchServiceOrder`), `verification` (its real-name
 * attempt, `activatePaidAttempt`), or `settlement` (the settlement itself: a recharge credits the
 * balance in the paying transaction and is dispatched at once).
 */
export type Fulfilment = 'provisioning' | 'service_order' | 'verification' | 'settlement';

/** The fulfilments started after the settlement commits (its `fulfil:<invoice id>` outbox row, `dispatchFulfilment`). */
export const DISPATCHED_FULFILMENTS = ['provisioning', 'service_order', 'verification'] as const satisfies readonly Fulfilment[];

/**
 * When the daily stale-invoice job cancels an unpaid invoice (`cancelStaleInvoices`):
 * `days_old` once older than `STALE_INVOICE_CANCEL_DAYS` (these get the unpaid reminder before),
 * `quote_day_over` once its quote's (Shanghai) day passed or its service stopped running,
 * `service_ended` once its service is terminated or cancelled.
 */
export type StaleRule = 'days_old' | 'quote_day_over' | 'service_ended';

export type InvoiceKind = {
  /** Its Chinese name (`type_label` of the invoice resources). */
  label: string;
  /** A user pays it (`assertPayable`: 40912 otherwise); the others are created paid (admin documents, red entries). */
  payable: boolean;
  /** Payable from the balance, whole or as the balance part of a QR payment (a recharge is not: 42200). */
  payableFromBalance: boolean;
  /** An admin can refund it (`createRefund`: 40915 otherwise). */
  refundable: boolean;
  /** What fulfils it once paid; null: nothing (it is never paid by a user). */
  fulfilment: Fulfilment | null;
  /** Paid by an invitee, it books their referrer a commission (`commissionCtes`). */
  earnsCommission: boolean;
  /** Its paid amount less refunds counts toward the member level reached by spend (`applySpendLevels`). */
  memberSpend: boolean;
  /** What the dashboard counts it as once paid: `sales` (revenue) or `recharge`; null: neither. */
  countsAs: 'sales' | 'recharge' | null;
  /** The type of the order written with it and marked paid by its settlement; null: it has no order. */
  orderType: OrderType | null;
  /** The scene of the recharge record of its third-party part; null: it is never paid through the gateway. */
  rechargeScene: Exclude<RechargeScene, 'refund'> | null;
  /** When it is cancelled unpaid as stale; null: never. */
  staleWhen: StaleRule | null;
};

const NOT_PAID_BY_USERS = {
  payable: false,
  payableFromBalance: false,
  refundable: false,
  fulfilment: null,
  earnsCommission: false,
  memberSpend: false,
  countsAs: null,
  orderType: null,
  rechargeScene: null,
  staleWhen: null,
} as const;

export const INVOICE_KINDS = {
  purchase: {
    label: '新购',
    payable: true,
    payableFromBalance: true,
    refundable: true,
    fulfilment: 'provisioning',
    earnsCommission: true,
    memberSpend: true,
    countsAs: 'sales',
    orderType: 'new_purchase',
    rechargeScene: 'new_purchase',
    staleWhen: 'days_old',
  },
  renew: {
    label: '续费',
    payable: true,
    payableFromBalance: true,
    refundable: true,
    fulfilment: 'service_order',
    earnsCommission: true,
    memberSpend: true,
    countsAs: 'sales',
    orderType: 'renewal',
    rechargeScene: 'renewal',
    staleWhen: 'service_ended',
  },
  traffic_package: {
    label: '流量包',
    payable: true,
    payableFromBalance: true,
    refundable: true,
    fulfilment: 'service_order',
    earnsCommission: true,
    memberSpend: true,
    countsAs: 'sales',
    orderType: 'traffic_package',
    // A traffic package is a purchase of an add-on.
    rechargeScene: 'new_purchase',
    staleWhen: 'days_old',
  },
  upgrade: {
    label: '升降级',
    payable: true,
    payableFromBalance: true,
    refundable: true,
    fulfilment: 'service_order',
    earnsCommission: true,
    memberSpend: true,
    countsAs: 'sales',
    orderType: 'upgrade',
    rechargeScene: 'new_purchase',
    staleWhen: 'quote_day_over',
  },
  recharge: {
    label: '充值',
    payable: true,
    payableFromBalance: false,
    refundable: false,
    fulfilment: 'settlement',
    earnsCommission: false,
    memberSpend: false,
    countsAs: 'recharge',
    orderType: null,
    rechargeScene: 'user_recharge',
    staleWhen: null,
  },
  deduction: { label: '扣款', ...NOT_PAID_BY_USERS },
  /** The red entry of a refund (negative amount, `origin_invoice_id` → the original). */
  refund: { label: '退款', ...NOT_PAID_BY_USERS },
  /** A paid real-name verification attempt, bought like a service (no order). */
  verification: {
    label: '实名认证',
    payable: true,
    payableFromBalance: true,
    refundable: false,
    fulfilment: 'verification',
    earnsCommission: false,
    memberSpend: false,
    countsAs: 'sales',
    orderType: null,
    rechargeScene: 'new_purchase',
    staleWhen: null,
  },
} as const satisfies Record<InvoiceType, InvoiceKind>;

/** The properties whose values can select types (every one but the label). */
export type InvoiceKindProperty = Exclude<keyof InvoiceKind, 'label'>;

/**
 * The invoice types, in `INVOICE_TYPES` order, whose `property` is one of `values`, or, without
 * values, is set (true, or not null): `invoiceTypesWhere('refundable')`,
 * `invoiceTypesWhere('countsAs', 'sales')`. What SQL receives as `= ANY($n::text[])`.
 */
export function invoiceTypesWhere<K extends InvoiceKindProperty>(property: K, ...values: NonNullable<Exclude<InvoiceKind[K], false>>[]): InvoiceType[] {
  return INVOICE_TYPES.filter((type) => {
    const value: unknown = (INVOICE_KINDS[type] as InvoiceKind)[property];
    return values.length === 0 ? value !== null && value !== false : (values as unknown[]).includes(value);
  });
}

/** Chinese names joined as a list: `新购、续费、流量包与升降级` (for messages naming the types with a property). */
export function invoiceTypeNames(types: readonly InvoiceType[]): string {
  const names = types.map((type) => INVOICE_KINDS[type].label);
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join('、')}与${names.at(-1)}`;
}

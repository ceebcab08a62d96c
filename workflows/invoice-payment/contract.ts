import { defineSignal } from '@temporalio/workflow';

/**
 * The durable QR payment of one invoice (`invoice-payment:<invoice_no>`): polls the gateway
 * on a backoff schedule, takes the notification as a signal, settles exactly once through the
 * same domain function as the notify route (whose outbox row has the relay start the
 * fulfilment; runs before patch `fulfilment-by-outbox` dispatched it here), and closes the trade when
 * the payment window expires (reversing a balance part). `pay/qrpay` signals-with-start it
 * (a running one is reused, as with conflict policy USE_EXISTING) with `payment.opened`, so a
 * new payment of the same invoice opened while the previous run is finishing is followed too.
 */
export const INVOICE_PAYMENT_WORKFLOW_TYPE = 'invoicePaymentWorkflow';

export type InvoicePaymentInput = {
  invoiceNo: string;
  paymentNo: string;
  userId: number;
  /** ISO time after which the trade is closed. */
  expiresAt: string;
  /** Seconds between gateway queries; the last one repeats. */
  pollIntervalsSeconds: number[];
};

export type PaymentState = 'pending' | 'paid' | 'closed';

export type OpenedPayment = { paymentNo: string; expiresAt: string };

export type PaymentCheck = { state: PaymentState; invoiceId: number };

/** `dispatched`: whether this run dispatched the fulfilment itself (only runs from before patch `fulfilment-by-outbox`). */
export type InvoicePaymentResult = { paymentNo: string; outcome: 'paid' | 'closed'; dispatched: boolean };

/** The notify route settled (or saw) a payment: look at our records now instead of at the next poll. */
export const paymentNotifiedSignal = defineSignal('payment.notified');

/** A QR payment of the invoice was opened (the first one arrives with the start as well). */
export const paymentOpenedSignal = defineSignal<[OpenedPayment]>('payment.opened');

/** BusinessStage values, shown in the Temporal UI. */
export const PAYMENT_STAGES = {
  awaiting: 'awaiting_payment',
  closing: 'closing_payment',
  /** This and `dispatchFailed`: runs from before patch `fulfilment-by-outbox` only. */
  dispatching: 'dispatching_fulfilment',
  settled: 'payment_settled',
  closed: 'payment_closed',
  dispatchFailed: 'fulfilment_dispatch_failed',
} as const;

/** ApplicationFailure types this workflow raises. */
export const PAYMENT_FAILURES = {
  /** Runs from before patch `fulfilment-by-outbox` only (an impossible fulfilment now stays in its outbox row's `last_error`). */
  dispatch: 'FulfilmentDispatchFailed',
  anomaly: 'PaymentAnomaly',
} as const;

export function invoicePaymentWorkflowId(invoiceNo: string): string {
  return `invoice-payment:${invoiceNo}`;
}

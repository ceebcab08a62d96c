import { defineQuery, defineUpdate } from '@temporalio/workflow';

/**
 * What renewals (`renew:<invoice_no>`) and traffic-package purchases (`traffic:<invoice_no>`)
 * share: one paid invoice of a running service, fulfilled upstream exactly once (request the
 * upstream bill, record it, pay it, reconciling after every ambiguous answer), then locally
 * (due date moved, package recorded). A failure retrying cannot fix parks the run in
 * `awaiting_admin` until an admin retries or cancels (refund to balance) through
 * `service-order.decide`.
 */
export const SERVICE_ORDER_STAGES = [
  'queued',
  'prepare',
  'upstream_renew',
  'upstream_buy',
  'upstream_pay',
  'complete',
  'done',
  'awaiting_admin',
  'cancelling',
  'cancelled',
] as const;
export type ServiceOrderStage = (typeof SERVICE_ORDER_STAGES)[number];

export type ServiceOrderInput = { invoiceId: number; invoiceNo: string };

export type ServiceOrderOutcome = 'succeeded' | 'cancelled';
export type ServiceOrderResult = { invoiceNo: string; outcome: ServiceOrderOutcome };

export type ServiceOrderFailure = { stage: ServiceOrderStage; code: string; reason: string };

export type ServiceOrderState = {
  stage: ServiceOrderStage;
  /** Runs of the upstream steps: 1, then one more per admin retry. */
  runs: number;
  failure: ServiceOrderFailure | null;
};

export type ServiceOrderDecision = { action: 'retry' | 'cancel'; decider: { id: number; name: string }; reason: string };

export const decideServiceOrderUpdate = defineUpdate<ServiceOrderState, [ServiceOrderDecision]>('service-order.decide');
export const serviceOrderStateQuery = defineQuery<ServiceOrderState>('service-order.state');

/** ApplicationFailure types of the service-order activities. */
export const SERVICE_ORDER_FAILURES = {
  /** The upstream refused for good (supplier balance too low, host not renewable, …). */
  permanent: 'UpstreamPermanent',
  /** Nothing happened or a read failed: retried with backoff. */
  transient: 'UpstreamTransient',
  /** It may have happened upstream: the next attempt reconciles before acting again. */
  ambiguous: 'UpstreamAmbiguous',
  /** Our own rules refused (service ended, refund not allowed): not retried. */
  refused: 'ServiceOrderRefused',
} as const;

/** Why `prepare` found nothing to do, or the order cannot go on. */
export type PreparedServiceOrder =
  | { kind: 'finished'; outcome: ServiceOrderOutcome }
  | { kind: 'refused'; serviceId: number; userId: number; code: string; reason: string }
  | { kind: 'local'; serviceId: number; userId: number }
  | { kind: 'upstream'; serviceId: number; userId: number; supplierCode: string; providerKey: string };

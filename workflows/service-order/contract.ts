import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { type UpstreamDecision, type UpstreamFailure, type UpstreamState, upstreamStages } from '../upstream/contract.js';

/**
 * What renewals (`renew:<invoice_no>`), traffic-package purchases (`traffic:<invoice_no>`) and
 * configuration changes (`upgrade:<invoice_no>`) share: one paid invoice of a running service, fulfilled upstream exactly once (request the
 * upstream bill, record it, pay it, reconciling after every ambiguous answer), then locally
 * (due date moved, package recorded). A failure retrying cannot fix parks the run in
 * `awaiting_admin` until an admin retries or cancels (refund to balance) through
 * `service-order.decide`.
 */
/**
 * The buying stage of one kind of service order (its committing request: `upstream_renew`, …),
 * declared by that kind's own contract (`workflows/<kind>/contract.ts`). The list of every
 * service order's stages is made from what the kinds declare (`SERVICE_ORDER_STAGES`,
 * domain/upstream-work/kinds.ts), not written here.
 */
export type OrderBuyingStage = `upstream_${string}`;

/** What every service order does after the upstream payment: its local part (due date, package, configuration). */
export const SERVICE_ORDER_FINISH = ['complete'] as const;

/** The stages every service order has, around its kind's buying stage. */
export const SERVICE_ORDER_SHARED_STAGES = upstreamStages([], SERVICE_ORDER_FINISH);
export type ServiceOrderStage = (typeof SERVICE_ORDER_SHARED_STAGES)[number] | OrderBuyingStage;

export type ServiceOrderInput = { invoiceId: number; invoiceNo: string };

export type ServiceOrderOutcome = 'succeeded' | 'cancelled';
export type ServiceOrderResult = { invoiceNo: string; outcome: ServiceOrderOutcome };

export type ServiceOrderFailure = UpstreamFailure<ServiceOrderStage>;

export type ServiceOrderState = UpstreamState<ServiceOrderStage>;

/** Decisions, failure types and the failure shown to the admin: ../upstream/contract.ts. */
export const decideServiceOrderUpdate = defineUpdate<ServiceOrderState, [UpstreamDecision]>('service-order.decide');
export const serviceOrderStateQuery = defineQuery<ServiceOrderState>('service-order.state');

/** Why `prepare` found nothing to do, or the order cannot go on. */
export type PreparedServiceOrder =
  | { kind: 'finished'; outcome: ServiceOrderOutcome }
  | { kind: 'refused'; serviceId: number; userId: number; code: string; reason: string }
  | { kind: 'local'; serviceId: number; userId: number }
  | { kind: 'upstream'; serviceId: number; userId: number; supplierCode: string; providerKey: string };

import type { Actor } from '../lib/actor.js';
import type { DomainDeps } from '../domain/deps.js';
import { cancelServiceOrder } from '../domain/upstream-work/service-order/cancel-service-order.js';
import { completeServiceOrder } from '../domain/upstream-work/service-order/complete-service-order.js';
import { payUpstreamBill } from '../domain/upstream-work/service-order/pay-upstream-bill.js';
import { prepareServiceOrder } from '../domain/upstream-work/service-order/prepare-service-order.js';
import { requestUpstreamBill } from '../domain/upstream-work/service-order/request-upstream-bill.js';
import { checkServiceOrderFunds } from '../domain/upstream-work/service-order/check-funds.js';
import { serviceOrderWork } from '../domain/upstream-work/kinds.js';
import { enterWorkStage, markWorkFailed, recordWorkAttempt } from '../domain/upstream-work/record.js';
import type { ServiceOrderFailure } from '../workflows/service-order/contract.js';
import { type AttemptJournal, upstreamClassifier } from './classify.js';

/** Failures of these activities: ./classify.ts. */
const classified = upstreamClassifier('serviceOrder');

/**
 * Activities of the renewal, traffic-package and upgrade workflows: thin adapters over
 * domain/upstream-work/service-order and the upstream-work kernel (domain/upstream-work/). Their names are
 * in recorded histories: never rename them.
 */
export function createServiceOrderActivities(deps: DomainDeps) {
  // Failed attempts of the upstream steps become rows of the order's history.
  const attempts = (input: { invoiceId: number; workflowId: string }): AttemptJournal => (attempt) =>
    recordWorkAttempt(deps, serviceOrderWork(input.invoiceId), input.workflowId, attempt);
  return {
    prepareServiceOrder: (input: { invoiceId: number; workflowId: string; retriedBy?: Actor | null }) => classified(() => prepareServiceOrder(deps, input)),
    enterServiceOrderStage: (input: { invoiceId: number; stage: string; workflowId: string }) =>
      classified(() => enterWorkStage(deps, serviceOrderWork(input.invoiceId), input)),
    requestUpstreamBill: (input: { invoiceId: number; workflowId: string }) => classified(() => requestUpstreamBill(deps, input), attempts(input)),
    checkServiceOrderFunds: (input: { invoiceId: number; workflowId: string; refused: boolean }) => classified(() => checkServiceOrderFunds(deps, input)),
    payUpstreamBill: (input: { invoiceId: number; workflowId: string }) => classified(() => payUpstreamBill(deps, input), attempts(input)),
    completeServiceOrder: (input: { invoiceId: number; workflowId: string }) => classified(() => completeServiceOrder(deps, input)),
    markServiceOrderFailed: (input: { invoiceId: number; failure: ServiceOrderFailure; workflowId: string }) =>
      classified(() => markWorkFailed(deps, serviceOrderWork(input.invoiceId), input)),
    cancelServiceOrder: (input: { invoiceId: number; decider: Actor; reason: string; workflowId: string }) => classified(() => cancelServiceOrder(deps, input)),
  };
}

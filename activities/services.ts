import type { Actor } from '../lib/actor.js';
import type { DomainDeps } from '../domain/deps.js';
import { cancelServiceOrder } from '../domain/services/orders/cancel-service-order.js';
import { completeServiceOrder } from '../domain/services/orders/complete-service-order.js';
import { enterServiceOrderStage, markServiceOrderFailed, recordServiceOrderAttempt } from '../domain/services/orders/order-stage.js';
import { payUpstreamBill } from '../domain/services/orders/pay-upstream-bill.js';
import { prepareServiceOrder } from '../domain/services/orders/prepare-service-order.js';
import { requestUpstreamBill } from '../domain/services/orders/request-upstream-bill.js';
import type { ServiceOrderFailure } from '../workflows/service-order/contract.js';
import { REFUSED_FAILURES } from '../workflows/upstream/contract.js';
import { type AttemptJournal, classifier, dataErrorsAreFinal, type FailurePolicy } from './classify.js';

/** Failures of renewal and traffic-package activities (see ./classify.ts). */
const SERVICE_ORDERS: FailurePolicy = { refused: () => REFUSED_FAILURES.serviceOrder, final: dataErrorsAreFinal(REFUSED_FAILURES.serviceOrder) };
const classified = classifier(SERVICE_ORDERS);

/** Activities of the renewal and traffic-package workflows: thin adapters over domain/services/orders. */
export function createServiceActivities(deps: DomainDeps) {
  // Failed attempts of the upstream steps become rows of the order's history.
  const attempts = (input: { invoiceId: number; workflowId: string }): AttemptJournal => (attempt) => recordServiceOrderAttempt(deps, input, attempt);
  return {
    prepareServiceOrder: (input: { invoiceId: number; workflowId: string; retriedBy?: Actor | null }) => classified(() => prepareServiceOrder(deps, input)),
    enterServiceOrderStage: (input: { invoiceId: number; stage: string; workflowId: string }) => classified(() => enterServiceOrderStage(deps, input)),
    requestUpstreamBill: (input: { invoiceId: number; workflowId: string }) => classified(() => requestUpstreamBill(deps, input), attempts(input)),
    payUpstreamBill: (input: { invoiceId: number; workflowId: string }) => classified(() => payUpstreamBill(deps, input), attempts(input)),
    completeServiceOrder: (input: { invoiceId: number; workflowId: string }) => classified(() => completeServiceOrder(deps, input)),
    markServiceOrderFailed: (input: { invoiceId: number; failure: ServiceOrderFailure; workflowId: string }) => classified(() => markServiceOrderFailed(deps, input)),
    cancelServiceOrder: (input: { invoiceId: number; decider: Actor; reason: string; workflowId: string }) => classified(() => cancelServiceOrder(deps, input)),
  };
}

import { ApplicationFailure } from '@temporalio/common';
import { AppError } from '../lib/errors.js';
import type { DomainDeps } from '../domain/deps.js';
import { cancelServiceOrder, type Decider } from '../domain/services/orders/cancel-service-order.js';
import { completeServiceOrder } from '../domain/services/orders/complete-service-order.js';
import { registerServiceOrderDispatchers } from '../domain/services/orders/dispatch-service-order.js';
import { enterServiceOrderStage, markServiceOrderFailed } from '../domain/services/orders/order-stage.js';
import { payUpstreamBill } from '../domain/services/orders/pay-upstream-bill.js';
import { prepareServiceOrder } from '../domain/services/orders/prepare-service-order.js';
import { requestUpstreamBill } from '../domain/services/orders/request-upstream-bill.js';
import { UpstreamStepError } from '../domain/suppliers/supplier-call.js';
import { SERVICE_ORDER_FAILURES, type ServiceOrderFailure } from '../workflows/service-order/contract.js';

const TYPE_BY_KIND = {
  transient: SERVICE_ORDER_FAILURES.transient,
  ambiguous: SERVICE_ORDER_FAILURES.ambiguous,
  permanent: SERVICE_ORDER_FAILURES.permanent,
} as const;

/**
 * Upstream failures keep the plugin's classification as the failure type (permanent ones are
 * not retried; an ambiguous one is, and the next attempt reconciles first); our own refusals
 * (AppError) are not retried; anything else (database away) is thrown as is and retried.
 */
async function classified<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof UpstreamStepError) {
      const failure = ApplicationFailure.create({ message: err.message, type: TYPE_BY_KIND[err.kind], details: [{ code: err.code }], nonRetryable: err.kind === 'permanent' });
      throw failure;
    }
    if (err instanceof AppError) throw ApplicationFailure.create({ message: err.message, type: SERVICE_ORDER_FAILURES.refused, details: [{ code: String(err.code) }], nonRetryable: true });
    throw err;
  }
}

/** Activities of the renewal and traffic-package workflows: thin adapters over domain/services/orders. */
export function createServiceActivities(deps: DomainDeps) {
  // The worker dispatches paid renewals and traffic packages too (the payment workflow, the hourly redispatch).
  registerServiceOrderDispatchers();
  return {
    prepareServiceOrder: (input: { invoiceId: number; workflowId: string; retriedBy?: Decider | null }) => classified(() => prepareServiceOrder(deps, input)),
    enterServiceOrderStage: (input: { invoiceId: number; stage: string; workflowId: string }) => classified(() => enterServiceOrderStage(deps, input)),
    requestUpstreamBill: (input: { invoiceId: number; workflowId: string }) => classified(() => requestUpstreamBill(deps, input)),
    payUpstreamBill: (input: { invoiceId: number; workflowId: string }) => classified(() => payUpstreamBill(deps, input)),
    completeServiceOrder: (input: { invoiceId: number; workflowId: string }) => classified(() => completeServiceOrder(deps, input)),
    markServiceOrderFailed: (input: { invoiceId: number; failure: ServiceOrderFailure; workflowId: string }) => classified(() => markServiceOrderFailed(deps, input)),
    cancelServiceOrder: (input: { invoiceId: number; decider: Decider; reason: string; workflowId: string }) => classified(() => cancelServiceOrder(deps, input)),
  };
}

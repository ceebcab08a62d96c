import { workflowInfo } from '@temporalio/workflow';
import { SearchAttr } from '../search-attributes.js';
import { upstreamActivities } from '../upstream/activities.js';
import { supplierAttributes, upstreamWork } from '../upstream/upstream-work.js';
import {
  decideServiceOrderUpdate,
  type OrderBuyingStage,
  type PreparedServiceOrder,
  type ServiceOrderInput,
  type ServiceOrderResult,
  type ServiceOrderStage,
  type ServiceOrderState,
  serviceOrderStateQuery,
} from './contract.js';

/**
 * The body of the renewal, traffic-package and upgrade workflows. `orderStage` names the
 * committing request (the kind's buying stage from its contract: `upstream_renew`, `upstream_buy`
 * or `upstream_upgrade`; only the stage string differs, so the command sequence of the older kinds is unchanged). Every stage is the `BusinessStage` search
 * attribute and a service event; a failure parks the run in `awaiting_admin` (never a silent
 * stop) until `service-order.decide` says retry (same recorded upstream bill, so nothing is
 * bought twice) or cancel (the invoice refunded to the balance).
 */
export async function runServiceOrder(orderStage: OrderBuyingStage, input: ServiceOrderInput): Promise<ServiceOrderResult> {
  const { workflowId } = workflowInfo();
  const { invoiceId, invoiceNo } = input;
  const state: ServiceOrderState = { stage: 'prepare', runs: 0, failure: null };
  const { upstream, local } = upstreamActivities('serviceOrder', { startToCloseTimeout: '2 minutes', maximumAttempts: 8 });
  const work = upstreamWork<ServiceOrderStage, ServiceOrderState>({
    state,
    decide: decideServiceOrderUpdate,
    query: serviceOrderStateQuery,
    recordStage: (stage) => local.enterServiceOrderStage({ invoiceId, stage, workflowId }),
  });
  const { enter } = work;

  const fulfilUpstream = () =>
    work.failureIn(async () => {
      await enter(orderStage);
      await upstream.requestUpstreamBill({ invoiceId, workflowId });
      await work.payUpstream(
        () => upstream.payUpstreamBill({ invoiceId, workflowId }),
        (refused) => upstream.checkServiceOrderFunds({ invoiceId, workflowId, refused }),
      );
    });

  return work.run<PreparedServiceOrder, ServiceOrderResult>({
    prepare: (retriedBy) => local.prepareServiceOrder(retriedBy ? { invoiceId, workflowId, retriedBy } : { invoiceId, workflowId }),
    finished: (prepared) => ({ invoiceNo, outcome: prepared.outcome }),
    attributes: (prepared) => [
      { key: SearchAttr.ServiceId, value: prepared.serviceId },
      { key: SearchAttr.UserId, value: prepared.userId },
      { key: SearchAttr.InvoiceNo, value: invoiceNo },
      ...supplierAttributes(prepared.kind === 'upstream' ? prepared : null),
    ],
    fulfil: async (prepared) => {
      if (prepared.kind === 'refused') return { failure: { stage: 'prepare', code: prepared.code, reason: prepared.reason } };
      if (prepared.kind === 'upstream') {
        const failure = await fulfilUpstream();
        if (failure) return { failure };
      }
      await enter('complete');
      await local.completeServiceOrder({ invoiceId, workflowId });
      state.failure = null;
      work.settle('done');
      return { result: { invoiceNo, outcome: 'succeeded' } };
    },
    markFailed: (failure) => local.markServiceOrderFailed({ invoiceId, failure, workflowId }),
    cancel: (decision) => local.cancelServiceOrder({ invoiceId, decider: decision.decider, reason: decision.reason, workflowId }),
    cancelled: () => ({ invoiceNo, outcome: 'cancelled' }),
  });
}

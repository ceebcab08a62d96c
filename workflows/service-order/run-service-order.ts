import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { SearchAttr } from '../search-attributes.js';
import { upstreamActivities } from '../upstream/activities.js';
import { adminDecisions } from '../upstream/admin-decision.js';
import { failureOf } from '../upstream/contract.js';
import {
  decideServiceOrderUpdate,
  type PreparedServiceOrder,
  type ServiceOrderFailure,
  type ServiceOrderInput,
  type ServiceOrderResult,
  type ServiceOrderStage,
  type ServiceOrderState,
  serviceOrderStateQuery,
} from './contract.js';

/**
 * The body of the renewal and traffic-package workflows. `orderStage` names the committing
 * request (`upstream_renew` or `upstream_buy`). Every stage is the `BusinessStage` search
 * attribute and a service event; a failure parks the run in `awaiting_admin` (never a silent
 * stop) until `service-order.decide` says retry (same recorded upstream bill, so nothing is
 * bought twice) or cancel (the invoice refunded to the balance).
 */
export async function runServiceOrder(orderStage: 'upstream_renew' | 'upstream_buy', input: ServiceOrderInput): Promise<ServiceOrderResult> {
  const { workflowId } = workflowInfo();
  const { invoiceId, invoiceNo } = input;
  const state: ServiceOrderState = { stage: 'prepare', runs: 0, failure: null };
  const { upstream, local } = upstreamActivities('serviceOrder', { startToCloseTimeout: '2 minutes', maximumAttempts: 8 });
  const decisions = adminDecisions({ decide: decideServiceOrderUpdate, state: serviceOrderStateQuery }, state);

  const enter = async (stage: ServiceOrderStage) => {
    state.stage = stage;
    upsertSearchAttributes([{ key: SearchAttr.BusinessStage, value: stage }]);
    await local.enterServiceOrderStage({ invoiceId, stage, workflowId });
  };
  const settle = (stage: ServiceOrderStage) => {
    state.stage = stage;
    upsertSearchAttributes([{ key: SearchAttr.BusinessStage, value: stage }]);
  };

  const fulfilUpstream = async (): Promise<ServiceOrderFailure | null> => {
    try {
      await enter(orderStage);
      await upstream.requestUpstreamBill({ invoiceId, workflowId });
      await enter('upstream_pay');
      await upstream.payUpstreamBill({ invoiceId, workflowId });
      return null;
    } catch (err) {
      const failure = failureOf(err, state.stage);
      if (failure) return failure;
      throw err;
    }
  };

  await enter('prepare');
  let prepared: PreparedServiceOrder = await local.prepareServiceOrder({ invoiceId, workflowId });
  let carried: ServiceOrderFailure | null = null;
  for (;;) {
    if (prepared.kind === 'finished') return { invoiceNo, outcome: prepared.outcome };
    const attrs: Parameters<typeof upsertSearchAttributes>[0] = [
      { key: SearchAttr.ServiceId, value: prepared.serviceId },
      { key: SearchAttr.UserId, value: prepared.userId },
      { key: SearchAttr.InvoiceNo, value: invoiceNo },
    ];
    if (prepared.kind === 'upstream') {
      attrs.push({ key: SearchAttr.SupplierCode, value: prepared.supplierCode }, { key: SearchAttr.ProviderKey, value: prepared.providerKey });
    }
    upsertSearchAttributes(attrs);

    let failure = carried;
    carried = null;
    if (!failure) {
      state.runs += 1;
      if (prepared.kind === 'refused') failure = { stage: 'prepare', code: prepared.code, reason: prepared.reason };
      else if (prepared.kind === 'upstream') failure = await fulfilUpstream();
    }
    if (!failure) {
      await enter('complete');
      await local.completeServiceOrder({ invoiceId, workflowId });
      state.failure = null;
      settle('done');
      return { invoiceNo, outcome: 'succeeded' };
    }

    const stopped = failure;
    const chosen = await decisions.awaitDecision(stopped, () => local.markServiceOrderFailed({ invoiceId, failure: stopped, workflowId }));
    if (chosen.action === 'cancel') {
      await enter('cancelling');
      try {
        await local.cancelServiceOrder({ invoiceId, decider: chosen.decider, reason: chosen.reason, workflowId });
      } catch (err) {
        // A refused cancellation goes back to the admin with its reason, without buying again.
        carried = failureOf(err, 'cancelling');
        if (!carried) throw err;
        continue;
      }
      settle('cancelled');
      return { invoiceNo, outcome: 'cancelled' };
    }
    state.failure = null;
    await enter('prepare');
    prepared = await local.prepareServiceOrder({ invoiceId, workflowId, retriedBy: chosen.decider });
  }
}

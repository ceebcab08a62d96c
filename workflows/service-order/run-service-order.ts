import { ActivityFailure, ApplicationFailure, condition, proxyActivities, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { SearchAttr } from '../search-attributes.js';
import {
  decideServiceOrderUpdate,
  type PreparedServiceOrder,
  SERVICE_ORDER_FAILURES,
  type ServiceOrderDecision,
  type ServiceOrderFailure,
  type ServiceOrderInput,
  type ServiceOrderResult,
  type ServiceOrderStage,
  type ServiceOrderState,
  serviceOrderStateQuery,
} from './contract.js';

// Upstream steps: transient and ambiguous failures retry with backoff (each attempt reconciles
// first when an earlier one may have committed); permanent ones stop at once.
const upstream = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '2s',
    backoffCoefficient: 2,
    maximumInterval: '1m',
    maximumAttempts: 8,
    nonRetryableErrorTypes: [SERVICE_ORDER_FAILURES.permanent, SERVICE_ORDER_FAILURES.refused],
  },
});

// Our own database steps: retried until the database answers.
const local = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', nonRetryableErrorTypes: [SERVICE_ORDER_FAILURES.refused] },
});

/** The Chinese reason and code of a failed step, from the end of the cause chain. */
function failureOf(err: unknown, stage: ServiceOrderStage): ServiceOrderFailure | null {
  if (!(err instanceof ActivityFailure)) return null;
  const cause = err.cause;
  if (cause instanceof ApplicationFailure) {
    const details = (cause.details?.[0] ?? {}) as { code?: unknown };
    const code = typeof details.code === 'string' ? details.code : (cause.type ?? 'failed');
    const exhausted = cause.type !== SERVICE_ORDER_FAILURES.permanent && cause.type !== SERVICE_ORDER_FAILURES.refused;
    return { stage, code, reason: exhausted ? `${cause.message}（已重试多次）` : cause.message };
  }
  return { stage, code: 'failed', reason: '上游步骤多次失败，请检查供应商状态' };
}

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
  let decision: ServiceOrderDecision | null = null;
  setHandler(serviceOrderStateQuery, () => state);
  setHandler(
    decideServiceOrderUpdate,
    (d) => {
      decision = d;
      return state;
    },
    {
      validator: (d) => {
        if (state.stage !== 'awaiting_admin' || decision !== null) throw new Error('only an order awaiting an admin decision can be retried or cancelled');
        if (d.action !== 'retry' && d.action !== 'cancel') throw new Error('action must be retry or cancel');
      },
    },
  );

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

    state.failure = failure;
    // Waiting from here on: the row says so once the activity below wrote it, and an admin who
    // reads it must find the workflow taking the decision.
    state.stage = 'awaiting_admin';
    await local.markServiceOrderFailed({ invoiceId, failure, workflowId });
    settle('awaiting_admin');
    await condition(() => decision !== null);
    const chosen = decision as ServiceOrderDecision | null;
    decision = null;
    if (chosen?.action === 'cancel') {
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
    prepared = await local.prepareServiceOrder({ invoiceId, workflowId, retriedBy: chosen?.decider ?? null });
  }
}

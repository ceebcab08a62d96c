import { ApplicationFailure, sleep, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { SearchAttr } from '../search-attributes.js';
import { upstreamActivities } from '../upstream/activities.js';
import { adminDecisions } from '../upstream/admin-decision.js';
import { failureOf, UPSTREAM_FAILURES } from '../upstream/contract.js';
import {
  decideUpdate,
  type ProvisionFailure,
  type ProvisionInput,
  type ProvisionResult,
  type ProvisionStage,
  type ProvisionState,
  type ProvisionTiming,
  stateQuery,
} from './contract.js';

const DEFAULT_TIMING: ProvisionTiming = { activityTimeoutSeconds: 60, maxAttempts: 8, hostPollSeconds: [5, 10, 20, 30], hostWaitMinutes: 120 };

type Prepared = Awaited<ReturnType<Activities['prepareProvisioning']>>;
type Purchase = Extract<Prepared, { kind: 'upstream' }>;

/**
 * `provision:<service_id>`: buys the service upstream exactly once and activates it. Every
 * upstream step is an activity that reconciles before it repeats anything (see
 * domain/provisioning/upstream-order.ts); transient failures retry with backoff; anything that
 * retrying cannot fix, and retries that ran out, park the run in `awaiting_admin` with the
 * Chinese reason on the service, until an admin retries or cancels. Never a silent stop.
 */
export async function provisionServiceWorkflow(input: ProvisionInput): Promise<ProvisionResult> {
  const timing = { ...DEFAULT_TIMING, ...input.timing };
  const { workflowId } = workflowInfo();
  const serviceId = input.serviceId;
  const { upstream, local } = upstreamActivities('provision', {
    startToCloseTimeout: `${timing.activityTimeoutSeconds}s`,
    maximumAttempts: timing.maxAttempts,
  });

  const state: ProvisionState = { stage: 'prepare', runs: 0, failure: null, upstreamInvoiceId: null, hostId: null };
  const decisions = adminDecisions({ decide: decideUpdate, state: stateQuery }, state);

  const enter = async (stage: ProvisionStage) => {
    state.stage = stage;
    upsertSearchAttributes([{ key: SearchAttr.BusinessStage, value: stage }]);
    await local.enterProvisioningStage({ serviceId, stage, workflowId });
  };

  const pollHost = async (p: Purchase, hostId: number) => {
    const deadline = Date.now() + timing.hostWaitMinutes * 60_000;
    for (let i = 0; ; i++) {
      const host = await upstream.lookupUpstreamHost({ purchase: p, hostId });
      if (host.status === 'active') return host;
      if (['cancelled', 'terminated', 'deleted', 'fraud'].includes(host.status)) {
        throw ApplicationFailure.nonRetryable(`上游主机状态为 ${host.status}，无法开通`, UPSTREAM_FAILURES.permanent, { code: 'host_unusable' });
      }
      if (Date.now() >= deadline) {
        throw ApplicationFailure.nonRetryable(`上游主机在 ${timing.hostWaitMinutes} 分钟内未开通完成`, UPSTREAM_FAILURES.permanent, { code: 'host_timeout' });
      }
      const seconds = timing.hostPollSeconds[Math.min(i, timing.hostPollSeconds.length - 1)] ?? 30;
      await sleep(`${seconds}s`);
    }
  };

  const buy = async (p: Purchase): Promise<ProvisionFailure | null> => {
    try {
      await enter('login');
      await upstream.loginUpstream({ purchase: p });
      await enter('cart');
      let order = await upstream.fillUpstreamCart({ purchase: p });
      if (!order) {
        await enter('checkout');
        order = await upstream.checkoutUpstreamOrder({ purchase: p });
      }
      state.upstreamInvoiceId = order.invoiceId;
      state.hostId = order.hostId;
      await enter('upstream_pay');
      await upstream.payUpstreamOrder({ purchase: p, order });
      await enter('host_lookup');
      const host = await pollHost(p, order.hostId);
      await enter('bind');
      await local.bindUpstreamHost({ serviceId, hostId: order.hostId, workflowId });
      await enter('activate');
      await local.activateService({ serviceId, host, workflowId });
      state.stage = 'done';
      upsertSearchAttributes([{ key: SearchAttr.BusinessStage, value: 'done' }]);
      return null;
    } catch (err) {
      const failure = failureOf(err, state.stage);
      if (failure) return failure;
      throw err;
    }
  };

  await enter('prepare');
  let prepared: Prepared = await local.prepareProvisioning({ serviceId, workflowId });
  // A refused cancellation goes back to the admin with its reason, without buying again.
  let carried: ProvisionFailure | null = null;
  for (;;) {
    if (prepared.kind === 'finished') return { serviceId, outcome: 'already_finished', hostId: null };
    const attrs: Parameters<typeof upsertSearchAttributes>[0] = [
      { key: SearchAttr.UserId, value: prepared.userId },
      { key: SearchAttr.InvoiceNo, value: prepared.invoiceNo },
    ];
    if (prepared.kind === 'upstream') {
      attrs.push({ key: SearchAttr.SupplierCode, value: prepared.supplierCode }, { key: SearchAttr.ProviderKey, value: prepared.providerKey });
    }
    upsertSearchAttributes(attrs);
    let failure = carried;
    carried = null;
    if (!failure) {
      state.runs += 1;
      failure = prepared.kind === 'upstream' ? await buy(prepared) : { stage: 'prepare', code: 'no_upstream', reason: prepared.reason };
    }
    if (!failure) return { serviceId, outcome: 'active', hostId: state.hostId };

    const stopped = failure;
    const chosen = await decisions.awaitDecision(stopped, () => local.markProvisioningFailed({ serviceId, ...stopped, workflowId }));
    if (chosen.action === 'cancel') {
      await enter('cancelling');
      try {
        await local.cancelProvisioning({ serviceId, decider: chosen.decider, reason: chosen.reason, workflowId });
      } catch (err) {
        carried = failureOf(err, 'cancelling');
        if (!carried) throw err;
        continue;
      }
      state.stage = 'cancelled';
      upsertSearchAttributes([{ key: SearchAttr.BusinessStage, value: 'cancelled' }]);
      return { serviceId, outcome: 'cancelled', hostId: state.hostId };
    }
    state.failure = null;
    await enter('prepare');
    prepared = await local.prepareProvisioning({ serviceId, workflowId });
  }
}

import { ApplicationFailure, patched, sleep, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { SearchAttr } from '../search-attributes.js';
import { upstreamActivities } from '../upstream/activities.js';
import { type EnteringStage, UPSTREAM_FAILURES } from '../upstream/contract.js';
import { supplierAttributes, upstreamWork } from '../upstream/upstream-work.js';
import {
  decideUpdate,
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
 * The patch that folds each stage's record into its step's activity (issue #30: one local
 * activity less per stage). Runs recorded before it record every stage with
 * `enterProvisioningStage` first and keep doing so on replay.
 */
export const STAGE_IN_STEP_PATCH = 'provision-stage-in-step';

/**
 * The patch of failover (issue #38): a purchase failed at one supplier asks `failoverProvisioning`
 * whether to move to the product's next binding, and if it moved, prepares and buys again there.
 * Runs recorded before it park on the failure as they did.
 */
export const FAILOVER_PATCH = 'provision-failover';

/**
 * `provision:<service_id>`: buys the service upstream exactly once and activates it. Every
 * upstream step is an activity that reconciles before it repeats anything (see
 * domain/upstream-work/provision/upstream-order.ts); transient failures retry with backoff; anything that
 * retrying cannot fix, and retries that ran out, park the run in `awaiting_admin` with the
 * Chinese reason on the service, until an admin retries or cancels (the shape every upstream
 * workflow shares: ../upstream/upstream-work.ts). Never a silent stop.
 */
export async function provisionServiceWorkflow(input: ProvisionInput): Promise<ProvisionResult> {
  // Decided once, before any command: a run either records every stage in its step or none.
  const foldStages = patched(STAGE_IN_STEP_PATCH);
  const timing = { ...DEFAULT_TIMING, ...input.timing };
  const { workflowId } = workflowInfo();
  const serviceId = input.serviceId;
  const { upstream, local } = upstreamActivities('provision', {
    startToCloseTimeout: `${timing.activityTimeoutSeconds}s`,
    maximumAttempts: timing.maxAttempts,
  });

  const state: ProvisionState = { stage: 'prepare', runs: 0, failure: null, upstreamInvoiceId: null, hostId: null };
  const work = upstreamWork<ProvisionStage, ProvisionState>({
    state,
    decide: decideUpdate,
    query: stateQuery,
    recordStage: (stage) => local.enterProvisioningStage({ serviceId, stage, workflowId }),
    foldStages,
  });
  const { enterWith } = work;

  // Only the first look carries the stage to record (`entering`).
  const pollHost = async (p: Purchase, hostId: number, entering: EnteringStage | undefined) => {
    const deadline = Date.now() + timing.hostWaitMinutes * 60_000;
    for (let i = 0; ; i++) {
      const host = await upstream.lookupUpstreamHost({ purchase: p, hostId, entering: i === 0 ? entering : undefined });
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

  const buy = (p: Purchase) =>
    work.failureIn(async () => {
      await enterWith('login', (entering) => upstream.loginUpstream({ purchase: p, entering }));
      const filled = await enterWith('cart', (entering) => upstream.fillUpstreamCart({ purchase: p, entering }));
      const order = filled ?? (await enterWith('checkout', (entering) => upstream.checkoutUpstreamOrder({ purchase: p, entering })));
      state.upstreamInvoiceId = order.invoiceId;
      state.hostId = order.hostId;
      await work.payUpstream(
        (entering) => upstream.payUpstreamOrder({ purchase: p, order, entering }),
        (refused) => upstream.checkProvisioningFunds({ purchase: p, order, refused }),
      );
      const host = await enterWith('host_lookup', (entering) => pollHost(p, order.hostId, entering));
      await enterWith('bind', (entering) => local.bindUpstreamHost({ serviceId, hostId: order.hostId, workflowId, entering }));
      await enterWith('activate', (entering) => local.activateService({ serviceId, host, workflowId, entering }));
      work.settle('done');
    });

  return work.run<Prepared, ProvisionResult>({
    prepare: (retriedBy, entering) => local.prepareProvisioning(retriedBy ? { serviceId, workflowId, retriedBy, entering } : { serviceId, workflowId, entering }),
    finished: () => ({ serviceId, outcome: 'already_finished', hostId: null }),
    attributes: (prepared) => [
      { key: SearchAttr.UserId, value: prepared.userId },
      { key: SearchAttr.InvoiceNo, value: prepared.invoiceNo },
      ...supplierAttributes(prepared.kind === 'upstream' ? prepared : null),
    ],
    fulfil: async (prepared) => {
      let current: Exclude<Prepared, { kind: 'finished' }> = prepared;
      for (;;) {
        const failure = current.kind === 'upstream' ? await buy(current) : { stage: 'prepare' as const, code: 'no_upstream', reason: current.reason };
        if (!failure) return { result: { serviceId, outcome: 'active', hostId: state.hostId } };
        if (current.kind !== 'upstream' || !patched(FAILOVER_PATCH)) return { failure };
        // The next binding, once, when the failure allows it (domain/upstream-work/provision/failover.ts).
        const moved = await upstream.failoverProvisioning({ serviceId, workflowId, fromSupplierId: current.supplierId, failure });
        if (!moved.moved) return { failure: moved.reason ? { ...failure, reason: moved.reason } : failure };
        state.upstreamInvoiceId = null;
        state.hostId = null;
        const next = await enterWith('prepare', (entering) => local.prepareProvisioning({ serviceId, workflowId, entering }));
        if (next.kind === 'finished') return { result: { serviceId, outcome: 'already_finished', hostId: null } };
        upsertSearchAttributes(supplierAttributes(next.kind === 'upstream' ? next : null));
        current = next;
      }
    },
    markFailed: (failure) => local.markProvisioningFailed({ serviceId, ...failure, workflowId }),
    cancel: (decision) => local.cancelProvisioning({ serviceId, decider: decision.decider, reason: decision.reason, workflowId }),
    cancelled: () => ({ serviceId, outcome: 'cancelled', hostId: state.hostId }),
  });
}

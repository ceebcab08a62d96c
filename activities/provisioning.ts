import type { Actor } from '../lib/actor.js';
import type { DomainDeps } from '../domain/deps.js';
import { cancelProvisioning } from '../domain/upstream-work/provision/cancel-provisioning.js';
import { activateService, bindUpstreamHost, type HostSnapshot, lookupUpstreamHost } from '../domain/upstream-work/provision/host.js';
import { prepareProvisioning } from '../domain/upstream-work/provision/prepare.js';
import { type FailoverInput, failoverProvisioning } from '../domain/upstream-work/provision/failover.js';
import {
  checkoutUpstreamOrder,
  fillUpstreamCart,
  loginUpstream,
  payUpstreamOrder,
  type UpstreamOrder,
  type UpstreamPurchase,
} from '../domain/upstream-work/provision/upstream-order.js';
import { checkBeforePaying } from '../domain/upstream-work/checks.js';
import { provisioningWork } from '../domain/upstream-work/kinds.js';
import { enterWorkStage, enterWorkStageOnce, markWorkFailed, recordWorkAttempt } from '../domain/upstream-work/record.js';
import type { EnteringStage } from '../workflows/upstream/contract.js';
import { type AttemptJournal, upstreamClassifier } from './classify.js';

/** Failures of these activities: ./classify.ts. */
const classified = upstreamClassifier('provision');

/** A step's input in the folded shape: the stage it records first (workflows/upstream/upstream-work.ts `enterWith`). */
type Entering = { entering?: EnteringStage };

/**
 * Activities of `provision:<id>`: thin adapters over domain/upstream-work/provision and the upstream-work
 * kernel (domain/upstream-work/). Their names are in recorded histories: never rename them.
 * A step given `entering` records that stage first, once (`enterWorkStageOnce`), inside its
 * classified work: runs of the patch `provision-stage-in-step` have no `enterProvisioningStage`
 * before their steps.
 */
export function createProvisioningActivities(deps: DomainDeps) {
  // Failed attempts of the upstream steps become rows of the provisioning's step history.
  const attempts = (p: UpstreamPurchase): AttemptJournal => (attempt) => recordWorkAttempt(deps, provisioningWork(p.serviceId), p.traceId, attempt);
  /** The step's work, after the stage it enters (if it is given one). */
  const entered =
    <T>(serviceId: number, input: Entering, work: () => Promise<T>) =>
    async (): Promise<T> => {
      if (input.entering) await enterWorkStageOnce(deps, provisioningWork(serviceId), input.entering);
      return work();
    };
  return {
    prepareProvisioning: (input: { serviceId: number; workflowId: string; retriedBy?: Actor | null } & Entering) =>
      classified(entered(input.serviceId, input, () => prepareProvisioning(deps, input.serviceId, input.workflowId, input.retriedBy ?? null))),
    enterProvisioningStage: (input: { serviceId: number; stage: string; workflowId: string }) => enterWorkStage(deps, provisioningWork(input.serviceId), input),
    loginUpstream: (input: { purchase: UpstreamPurchase } & Entering) =>
      classified(entered(input.purchase.serviceId, input, () => loginUpstream(deps, input.purchase)), attempts(input.purchase)),
    fillUpstreamCart: (input: { purchase: UpstreamPurchase } & Entering) =>
      classified(entered(input.purchase.serviceId, input, () => fillUpstreamCart(deps, input.purchase)), attempts(input.purchase)),
    checkoutUpstreamOrder: (input: { purchase: UpstreamPurchase } & Entering) =>
      classified(entered(input.purchase.serviceId, input, () => checkoutUpstreamOrder(deps, input.purchase)), attempts(input.purchase)),
    // The kernel's checks before the upstream payment (hold below cost, funds): the bill's amount from the checkout; a paid order needs none.
    checkProvisioningFunds: (input: { purchase: UpstreamPurchase; order: UpstreamOrder; refused: boolean }) =>
      classified(() =>
        checkBeforePaying(deps, {
          kind: 'provision',
          serviceId: input.purchase.serviceId,
          supplierId: input.purchase.supplierId,
          amount: input.order.paid ? null : (input.order.amount ?? null),
          refused: input.refused,
          workflowId: input.purchase.traceId,
        }),
      ),
    payUpstreamOrder: (input: { purchase: UpstreamPurchase; order: UpstreamOrder } & Entering) =>
      classified(entered(input.purchase.serviceId, input, () => payUpstreamOrder(deps, input.purchase, input.order)), attempts(input.purchase)),
    // Of the host polls, only the first carries `entering`.
    lookupUpstreamHost: (input: { purchase: UpstreamPurchase; hostId: number } & Entering) =>
      classified(entered(input.purchase.serviceId, input, () => lookupUpstreamHost(deps, input.purchase, input.hostId)), attempts(input.purchase)),
    bindUpstreamHost: (input: { serviceId: number; hostId: number; workflowId: string } & Entering) =>
      classified(entered(input.serviceId, input, () => bindUpstreamHost(deps, input.serviceId, input.hostId, input.workflowId))),
    activateService: (input: { serviceId: number; host: HostSnapshot | null; workflowId: string } & Entering) =>
      classified(entered(input.serviceId, input, () => activateService(deps, input.serviceId, input.host, input.workflowId))),
    // After a failed purchase: move to the product's next binding when the failure allows it (issue #38).
    failoverProvisioning: (input: FailoverInput) => classified(() => failoverProvisioning(deps, input)),
    markProvisioningFailed: (input: { serviceId: number; stage: string; code: string; reason: string; workflowId: string }) =>
      markWorkFailed(deps, provisioningWork(input.serviceId), { failure: { stage: input.stage, code: input.code, reason: input.reason }, workflowId: input.workflowId }),
    cancelProvisioning: (input: { serviceId: number; decider: Actor; reason: string; workflowId: string }) => classified(() => cancelProvisioning(deps, input)),
  };
}

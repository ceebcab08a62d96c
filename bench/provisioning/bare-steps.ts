/** One step of a provisioning, as the bare Temporal baseline mirrors it: one local activity. */
export type BareStep = {
  /** The activity of ours it stands for. */
  name: string;
  /** Upstream calls the step makes: the bare step waits this many × the upstream latency; 0 returns at once. */
  upstreamCalls: number;
};

/** Input of `bareProvisioningWorkflow`: the steps to mirror and the latency of one upstream call. */
export type BareProvisioningInput = { steps: BareStep[]; latencyMs: number };

/** The bare worker's only activity: waits `ms` (returns at once for 0). */
export type BareActivities = { wait(ms: number): Promise<void> };

/**
 * The steps of one provisioning of ours, in order, as `provisionServiceWorkflow` runs them
 * (workflows/provisioning/workflow.ts, every step a local activity: workflows/upstream/activities.ts
 * MODE `provision`) on the path this bench takes: the cart answers no existing order (so checkout
 * runs) and the sandbox's host is active at the first lookup. Each stage is recorded by its
 * step's own activity, first (`enterWith`, workflows/upstream/upstream-work.ts, patch
 * `provision-stage-in-step`; runs from before it had an `enterProvisioningStage` activity before
 * each step: 16 in all). Upstream calls per step as in
 * domain/upstream-work/provision/upstream-order.ts: login_check; probe + cart; checkout; credit (the funds
 * check before paying, domain/upstream-work/checks.ts); invoice_pay; host_detail — 7 in all, the
 * sequence `runBare` in run-provisioning.ts makes. Our own database
 * steps wait nothing. When ours changes, change this list (it is the bare workflow's input).
 */
export const PROVISIONING_STEPS: readonly BareStep[] = [
  { name: 'prepareProvisioning', upstreamCalls: 0 },
  { name: 'loginUpstream', upstreamCalls: 1 },
  { name: 'fillUpstreamCart', upstreamCalls: 2 },
  { name: 'checkoutUpstreamOrder', upstreamCalls: 1 },
  { name: 'checkProvisioningFunds', upstreamCalls: 1 },
  { name: 'payUpstreamOrder', upstreamCalls: 1 },
  { name: 'lookupUpstreamHost', upstreamCalls: 1 },
  { name: 'bindUpstreamHost', upstreamCalls: 0 },
  { name: 'activateService', upstreamCalls: 0 },
];

/** Upstream calls of one provisioning along `steps`. */
export function upstreamCallsOf(steps: readonly BareStep[]): number {
  return steps.reduce((n, s) => n + s.upstreamCalls, 0);
}

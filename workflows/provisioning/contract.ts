import { defineQuery, defineUpdate } from '@temporalio/workflow';

/**
 * Provisioning of one service (`provision:<service_id>`), started once per service after its
 * purchase invoice is paid: login, cart, checkout, upstream pay, host lookup (until active),
 * bind, activate. Each step is its stage (search attribute `BusinessStage`). A failure retrying
 * cannot fix parks it in `awaiting_admin` until an admin retries (same downstream reference) or
 * cancels (refund to balance) through the `provision.decide` update.
 */
export const PROVISION_WORKFLOW_TYPE = 'provisionServiceWorkflow';

export const PROVISION_STAGES = [
  'queued',
  'prepare',
  'login',
  'cart',
  'checkout',
  'upstream_pay',
  'host_lookup',
  'bind',
  'activate',
  'done',
  'awaiting_admin',
  'cancelling',
  'cancelled',
] as const;
export type ProvisionStage = (typeof PROVISION_STAGES)[number];

/** The stage a provisioning is started with, before its first step. */
export const PROVISION_STAGE_AWAITING: ProvisionStage = 'queued';

export type ProvisionTiming = {
  activityTimeoutSeconds: number;
  maxAttempts: number;
  hostPollSeconds: number[];
  hostWaitMinutes: number;
};

export type ProvisionInput = { serviceId: number; timing?: ProvisionTiming };

export type ProvisionOutcome = 'active' | 'cancelled' | 'already_finished';
export type ProvisionResult = { serviceId: number; outcome: ProvisionOutcome; hostId: number | null };

export type ProvisionFailure = { stage: ProvisionStage; code: string; reason: string };

export type ProvisionState = {
  stage: ProvisionStage;
  /** Runs of the buying steps: 1, then one more per admin retry. */
  runs: number;
  failure: ProvisionFailure | null;
  upstreamInvoiceId: number | null;
  hostId: number | null;
};

export type ProvisionDecision = { action: 'retry' | 'cancel'; decider: { id: number; name: string }; reason: string };

export const decideUpdate = defineUpdate<ProvisionState, [ProvisionDecision]>('provision.decide');
export const stateQuery = defineQuery<ProvisionState>('provision.state');

/** ApplicationFailure types of the provisioning activities. */
export const PROVISION_FAILURES = {
  /** Retrying will not help (out of stock, supplier balance too low, product gone, …). */
  permanent: 'UpstreamPermanent',
  /** Nothing happened or a read failed: retried with backoff. */
  transient: 'UpstreamTransient',
  /** It may have happened upstream: the step reconciles before it acts again. */
  ambiguous: 'UpstreamAmbiguous',
  /** Our own rules refused (e.g. a refund not allowed): not retried. */
  refused: 'ProvisioningRefused',
} as const;

export function provisionWorkflowId(serviceId: number): string {
  return `provision:${serviceId}`;
}

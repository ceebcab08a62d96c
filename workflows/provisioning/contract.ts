import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { type UpstreamDecision, type UpstreamFailure, type UpstreamState, upstreamStages } from '../upstream/contract.js';

/**
 * Provisioning of one service (`provision:<service_id>`), started once per service after its
 * purchase invoice is paid: login, cart, checkout, upstream pay, host lookup (until active),
 * bind, activate. Each step is its stage (search attribute `BusinessStage`). A failure retrying
 * cannot fix parks it in `awaiting_admin` until an admin retries (same downstream reference) or
 * cancels (refund to balance) through the `provision.decide` update.
 */
export const PROVISION_WORKFLOW_TYPE = 'provisionServiceWorkflow';

export const PROVISION_STAGES = upstreamStages(['login', 'cart', 'checkout'], ['host_lookup', 'bind', 'activate']);
export type ProvisionStage = (typeof PROVISION_STAGES)[number];

/** The stage a provisioning is started with, before its first step. */
export const PROVISION_STAGE_QUEUED: ProvisionStage = 'queued';

export type ProvisionTiming = {
  activityTimeoutSeconds: number;
  maxAttempts: number;
  hostPollSeconds: number[];
  hostWaitMinutes: number;
};

export type ProvisionInput = { serviceId: number; timing?: ProvisionTiming };

export type ProvisionOutcome = 'active' | 'cancelled' | 'already_finished';
export type ProvisionResult = { serviceId: number; outcome: ProvisionOutcome; hostId: number | null };

export type ProvisionFailure = UpstreamFailure<ProvisionStage>;

export type ProvisionState = UpstreamState<ProvisionStage> & {
  upstreamInvoiceId: number | null;
  hostId: number | null;
};

/** Decisions, failure types and the failure shown to the admin: ../upstream/contract.ts. */
export const decideUpdate = defineUpdate<ProvisionState, [UpstreamDecision]>('provision.decide');
export const stateQuery = defineQuery<ProvisionState>('provision.state');

export function provisionWorkflowId(serviceId: number): string {
  return `provision:${serviceId}`;
}

import { defineSignal } from '@temporalio/workflow';

/**
 * Provisioning of one service (`provision:<service_id>`), started once per service after its
 * purchase invoice is paid. The body is a placeholder until the provisioning issue lands: it
 * marks the run `awaiting_provisioning` in the Temporal UI and waits for `proceedSignal`.
 */
export const PROVISION_WORKFLOW_TYPE = 'provisionServiceWorkflow';

export type ProvisionInput = { serviceId: number };

export type ProvisionResult = { serviceId: number; outcome: 'released' };

export const PROVISION_STAGE_AWAITING = 'awaiting_provisioning';

/** Lets the placeholder finish (ops, tests); the real workflow will define its own signals. */
export const proceedSignal = defineSignal('provision.proceed');

export function provisionWorkflowId(serviceId: number): string {
  return `provision:${serviceId}`;
}

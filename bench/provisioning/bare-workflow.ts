// The bare Temporal baseline of the provisioning bench: bundled on its own by bare-worker.ts
// (never part of workflows/), so it imports only @temporalio/workflow and types.
import { proxyLocalActivities } from '@temporalio/workflow';
import type { BareActivities, BareProvisioningInput } from './bare-steps.js';

const { wait } = proxyLocalActivities<BareActivities>({ startToCloseTimeout: '60s' });

/**
 * A provisioning with nothing of ours in it: one local activity per step of ours (the input's
 * step list), each only waiting its upstream calls × the latency. Answers the steps run.
 */
export async function bareProvisioningWorkflow(input: BareProvisioningInput): Promise<number> {
  for (const step of input.steps) await wait(step.upstreamCalls * input.latencyMs);
  return input.steps.length;
}

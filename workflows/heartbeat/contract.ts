import type { CadenceInput, CadenceResult } from '../cadence/contract.js';

export const HEARTBEAT_WORKFLOW_TYPE = 'heartbeatWorkflow';
export const HEARTBEAT_TASK_KEY = 'heartbeat';
export const HEARTBEAT_FAILED = 'HeartbeatFailed';

/** `trigger` and an optional `slotAt` (see CadenceInput). */
export type HeartbeatInput = CadenceInput;

export type HeartbeatResult = CadenceResult;

/** Manual runs get their own id; scheduled runs get `schedule:<id>-<timestamp>` from Temporal. */
export function heartbeatManualWorkflowId(requestedAt: Date): string {
  return `heartbeat-manual:${requestedAt.toISOString()}`;
}

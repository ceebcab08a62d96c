export const HEARTBEAT_WORKFLOW_TYPE = 'heartbeatWorkflow';
export const HEARTBEAT_TASK_KEY = 'heartbeat';

export type HeartbeatInput = {
  /** `schedule` for runs started by the Temporal Schedule, `manual` for admin triggers. */
  trigger: 'schedule' | 'manual';
};

export type HeartbeatResult = {
  taskRunId: number;
  summary: Record<string, number>;
};

/** Manual runs get their own id; scheduled runs get `schedule:<id>-<timestamp>` from Temporal. */
export function heartbeatManualWorkflowId(requestedAt: Date): string {
  return `heartbeat-manual:${requestedAt.toISOString()}`;
}

import { ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { ScheduledStartTime } from '../search-attributes.js';
import { type CadenceInput, type CadenceKind, type CadenceResult, slotStart } from './contract.js';
import { dispatchTasks, fireHook } from './steps.js';
import { rootCauseMessage } from '../workflow-steps.js';

const { startTaskRun, finishTaskRun, planCadenceTasks, runHeartbeatHousekeeping } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 5 },
});

export type CadencePlan = {
  kind: CadenceKind;
  taskKey: string;
  title: string;
  /** ApplicationFailure type when the run fails (e.g. `HeartbeatFailed`). */
  failureType: string;
  housekeeping: boolean;
  /** Hooks fired before the due tasks are started, in order. */
  before: string[];
  /** Hooks fired after the due tasks were started, in order (may depend on the slot). */
  after: (slot: Date) => string[];
};

/**
 * One cadence run (heartbeat, hourly or daily), in a fixed order: record the run, housekeeping
 * (heartbeat only), the `before` hooks, start every task due in this slot as its own workflow,
 * the `after` hooks, close the run. Hooks only ever warn; any other failure is recorded first,
 * then rethrown, so it is both in the task-run table and red in the Temporal UI.
 */
export async function runCadence(plan: CadencePlan, input: CadenceInput): Promise<CadenceResult> {
  const info = workflowInfo();
  const scheduledAt = info.typedSearchAttributes.get(ScheduledStartTime);
  const slot = slotStart(plan.kind, input.slotAt ? new Date(input.slotAt) : (scheduledAt ?? new Date()));
  const slotAt = slot.toISOString();
  const taskRunId = await startTaskRun({
    taskKey: plan.taskKey,
    title: plan.title,
    trigger: input.trigger,
    workflowId: info.workflowId,
    runId: info.runId,
    scheduledAt: scheduledAt ? scheduledAt.toISOString() : null,
  });
  const context = { cadence: plan.kind, slot_at: slotAt, trigger: input.trigger, workflow_id: info.workflowId };
  try {
    const summary: Record<string, number> = plan.housekeeping ? await runHeartbeatHousekeeping() : {};
    let hookFailures = 0;
    for (const hook of plan.before) hookFailures += await fireHook(hook, context);
    const dispatched = await dispatchTasks(await planCadenceTasks({ cadence: plan.kind, slotAt }));
    for (const hook of plan.after(slot)) hookFailures += await fireHook(hook, context);
    Object.assign(summary, { tasks_started: dispatched.started, tasks_skipped: dispatched.skipped, hook_failures: hookFailures });
    await finishTaskRun({ id: taskRunId, status: 'succeeded', summary, error: null });
    return { taskRunId, slotAt, summary };
  } catch (err) {
    const message = rootCauseMessage(err);
    await finishTaskRun({ id: taskRunId, status: 'failed', summary: null, error: message });
    throw ApplicationFailure.nonRetryable(`${plan.taskKey} failed: ${message}`, plan.failureType);
  }
}

import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { BACKGROUND_DEADLINE_MS } from '../../lib/temporal.js';
import type { DomainDeps } from '../deps.js';
import { type StartSubject, UPSTREAM_WORK_KINDS, type UpstreamWorkKind } from './kinds.js';

/**
 * Starts the workflow of one piece of upstream work once, for every kind (the type, id, input and
 * search attributes of its row of `UPSTREAM_WORK_KINDS`): a running one is reused
 * (USE_EXISTING), a finished one is never started again (REJECT_DUPLICATE, and
 * WorkflowExecutionAlreadyStarted is taken as done), so a repeated dispatch cannot buy twice.
 * The call gets `deadlineMs` (the background deadline): a start cut off by it may or may not have
 * happened, and the next attempt (same id) settles which.
 */
export async function startUpstreamWork(deps: DomainDeps, kind: UpstreamWorkKind, subject: StartSubject, deadlineMs = BACKGROUND_DEADLINE_MS): Promise<void> {
  if (!deps.temporal) throw new Error(`no Temporal client in these deps: cannot start ${kind} work`);
  const workflow = UPSTREAM_WORK_KINDS[kind].workflow;
  const { args, attributes } = workflow.start(subject, deps.config);
  try {
    await deps.temporal.withDeadline(
      (client) =>
        client.workflow.start(workflow.type, {
          workflowId: workflow.id(subject),
          taskQueue: deps.config.temporal.taskQueue,
          args,
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: attributes,
        }),
      deadlineMs,
    );
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    throw err;
  }
}

import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { BACKGROUND_DEADLINE_MS } from '../../lib/temporal.js';
import { sqlOne } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { SearchAttr } from '../../workflows/search-attributes.js';
import {
  VERIFICATION_STAGES,
  VERIFICATION_WORKFLOW_TYPE,
  type VerificationInput,
  verificationCallbackSignal,
  verificationWorkflowId,
} from '../../workflows/verification/contract.js';
import type { AttemptRecord } from './attempt-record.js';

type Startable = Pick<AttemptRecord, 'attempt_no' | 'user_id' | 'expires_at'>;

function startOptions(deps: DomainDeps, attempt: Startable) {
  const args: VerificationInput = {
    attemptNo: attempt.attempt_no,
    userId: attempt.user_id,
    expiresAt: (attempt.expires_at ?? new Date()).toISOString(),
    pollIntervalsSeconds: deps.config.verification.pollIntervalsSeconds,
  };
  return {
    workflowId: verificationWorkflowId(attempt.attempt_no),
    taskQueue: deps.config.temporal.taskQueue,
    args: [args] as [VerificationInput],
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
    typedSearchAttributes: [
      { key: SearchAttr.UserId, value: attempt.user_id },
      { key: SearchAttr.BusinessStage, value: VERIFICATION_STAGES.awaiting },
    ],
  };
}

/** Starts `verification:<attempt_no>` once (a running or finished one is left alone). */
export async function startVerificationWorkflow(deps: DomainDeps, attempt: Startable, deadlineMs: number): Promise<void> {
  if (!deps.temporal) throw new Error('no Temporal client in these deps: cannot start the verification workflow');
  try {
    await deps.temporal.withDeadline(
      (client) => client.workflow.start(VERIFICATION_WORKFLOW_TYPE, { ...startOptions(deps, attempt), workflowIdConflictPolicy: 'USE_EXISTING' }),
      deadlineMs,
    );
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return;
    throw err;
  }
}

async function attemptForIntent(deps: DomainDeps, attemptNo: string) {
  return sqlOne<Startable & { status: string }>(deps, 'SELECT attempt_no, user_id, expires_at, status FROM verification_attempts WHERE attempt_no = $1', [attemptNo]);
}

/** The outbox relay's `start_verification`: starts the workflow of a still pending attempt; anything else needs none. */
export async function resumeVerificationWorkflow(deps: DomainDeps, attemptNo: string): Promise<string | null> {
  const attempt = await attemptForIntent(deps, attemptNo);
  if (!attempt) return 'attempt not found';
  if (attempt.status !== 'pending') return `attempt already ${attempt.status}`;
  await startVerificationWorkflow(deps, attempt, BACKGROUND_DEADLINE_MS);
  return null;
}

/**
 * The outbox relay's `signal_verification` (a verified callback): signal-with-start, so a callback
 * that arrives before the workflow started still reaches it. An attempt that is no longer
 * pending, or a workflow that already finished, needs nothing: a late callback changes nothing.
 */
export async function signalVerificationWorkflow(deps: DomainDeps, attemptNo: string, deadlineMs = BACKGROUND_DEADLINE_MS): Promise<string | null> {
  if (!deps.temporal) throw new Error('no Temporal client in these deps: cannot signal the verification workflow');
  const attempt = await attemptForIntent(deps, attemptNo);
  if (!attempt) return 'attempt not found';
  if (attempt.status !== 'pending') return `attempt already ${attempt.status}`;
  try {
    await deps.temporal.withDeadline((client) => client.workflow.signalWithStart(VERIFICATION_WORKFLOW_TYPE, { ...startOptions(deps, attempt), signal: verificationCallbackSignal, signalArgs: [] }), deadlineMs);
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError || err instanceof WorkflowNotFoundError) return 'workflow already finished';
    throw err;
  }
  return null;
}

import { defineSignal } from '@temporalio/workflow';

/**
 * One real-name verification attempt (`verification:<attempt_no>`): makes sure the provider has
 * the session, then waits for the provider's callback (a signal, delivered through the outbox)
 * or the next poll on a backoff schedule, asks the provider (`verification.query`) and applies
 * a final result once; when the attempt's lifetime is over it looks one last time and expires
 * it. Search attribute `UserId` finds a user's attempts.
 */
export const VERIFICATION_WORKFLOW_TYPE = 'verificationWorkflow';

export type VerificationInput = {
  attemptNo: string;
  userId: number;
  /** ISO time after which the attempt expires. */
  expiresAt: string;
  /** Seconds between provider queries; the last one repeats. */
  pollIntervalsSeconds: number[];
};

export type VerificationState = 'pending' | 'passed' | 'failed' | 'expired' | 'cancelled';

export type VerificationCheck = { state: VerificationState };

export type VerificationResult = { attemptNo: string; outcome: VerificationState };

/** The provider called back for this attempt: ask it now instead of at the next poll. */
export const verificationCallbackSignal = defineSignal('verification.callback');

/** BusinessStage values, shown in the Temporal UI. */
export const VERIFICATION_STAGES = {
  awaiting: 'awaiting_verification',
  expiring: 'expiring_verification',
  finished: 'verification_finished',
} as const;

export function verificationWorkflowId(attemptNo: string): string {
  return `verification:${attemptNo}`;
}

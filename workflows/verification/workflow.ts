import { proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { pollUntil, setStage as stage, type Wake } from '../workflow-steps.js';
import { type VerificationInput, type VerificationResult, VERIFICATION_STAGES, verificationCallbackSignal } from './contract.js';

// One look at the provider: failures (provider or database away) retry a few times, then the poll loop goes on.
const { checkVerification } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 3 },
});

// Expiring must happen eventually: retried without limit, visible as a pending activity.
const { expireVerification } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});

/**
 * Follows one attempt until the provider decides or the attempt's lifetime ends: wait for the
 * callback signal or the next poll (backoff from the input, the last interval repeating), then
 * `checkVerification` (which opens the provider session if the request could not, queries, and
 * applies a final result exactly once). At the end `expireVerification` looks a last time and
 * expires what is still pending.
 */
export async function verificationWorkflow(input: VerificationInput): Promise<VerificationResult> {
  const wake: Wake = { notified: false };
  setHandler(verificationCallbackSignal, () => {
    wake.notified = true;
  });
  stage(VERIFICATION_STAGES.awaiting);
  const decided = await pollUntil({
    deadline: Date.parse(input.expiresAt),
    intervalsSeconds: input.pollIntervalsSeconds,
    wake,
    look: async () => {
      try {
        const check = await checkVerification({ attemptNo: input.attemptNo });
        return check.state !== 'pending' ? check.state : null;
      } catch {
        // The provider or our database being away only delays the next look.
        return null;
      }
    },
  });
  if (decided !== null) {
    stage(VERIFICATION_STAGES.finished);
    return { attemptNo: input.attemptNo, outcome: decided };
  }
  stage(VERIFICATION_STAGES.expiring);
  const final = await expireVerification({ attemptNo: input.attemptNo });
  stage(VERIFICATION_STAGES.finished);
  return { attemptNo: input.attemptNo, outcome: final.state };
}

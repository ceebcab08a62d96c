import { condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { SearchAttr } from '../search-attributes.js';
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

function stage(value: string): void {
  upsertSearchAttributes([{ key: SearchAttr.BusinessStage, value }]);
}

/**
 * Follows one attempt until the provider decides or the attempt's lifetime ends: wait for the
 * callback signal or the next poll (backoff from the input, the last interval repeating), then
 * `checkVerification` (which opens the provider session if the request could not, queries, and
 * applies a final result exactly once). At the end `expireVerification` looks a last time and
 * expires what is still pending.
 */
export async function verificationWorkflow(input: VerificationInput): Promise<VerificationResult> {
  let notified = false;
  setHandler(verificationCallbackSignal, () => {
    notified = true;
  });
  stage(VERIFICATION_STAGES.awaiting);
  const deadline = Date.parse(input.expiresAt);
  const intervals = input.pollIntervalsSeconds.length > 0 ? input.pollIntervalsSeconds : [30];
  for (let round = 0; ; round++) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    const intervalMs = (intervals[Math.min(round, intervals.length - 1)] ?? 30) * 1000;
    await condition(() => notified, Math.min(intervalMs, remaining));
    notified = false;
    try {
      const check = await checkVerification({ attemptNo: input.attemptNo });
      if (check.state !== 'pending') {
        stage(VERIFICATION_STAGES.finished);
        return { attemptNo: input.attemptNo, outcome: check.state };
      }
    } catch {
      // The provider or our database being away only delays the next look.
    }
  }
  stage(VERIFICATION_STAGES.expiring);
  const final = await expireVerification({ attemptNo: input.attemptNo });
  stage(VERIFICATION_STAGES.finished);
  return { attemptNo: input.attemptNo, outcome: final.state };
}

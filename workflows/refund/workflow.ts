import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { setStage as stage } from '../workflow-steps.js';
import { REFUND_STAGES, type RefundInput, type RefundResult, retrySignal } from './contract.js';

// Every attempt reuses the refund's out_request_no, so retrying is safe: the gateway refunds once.
const { executeOriginalRefund } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 6 },
});

/**
 * An `original` refund: the gateway refund and the refund's documents. When the attempts are
 * spent (gateway down for long), the run waits visibly as `refund_stuck` for `refund.retry`
 * instead of failing into a heap.
 */
export async function refundWorkflow(input: RefundInput): Promise<RefundResult> {
  let retryRequested = false;
  setHandler(retrySignal, () => {
    retryRequested = true;
  });
  for (;;) {
    try {
      const outcome = await executeOriginalRefund({ refundNo: input.refundNo });
      stage(outcome === 'succeeded' ? REFUND_STAGES.succeeded : REFUND_STAGES.failed);
      return { refundNo: input.refundNo, outcome };
    } catch {
      stage(REFUND_STAGES.stuck);
      await condition(() => retryRequested);
      retryRequested = false;
      stage(REFUND_STAGES.refunding);
    }
  }
}

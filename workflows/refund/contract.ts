import { defineSignal } from '@temporalio/workflow';

/**
 * An `original` refund through the payment gateway (`refund:<refund_no>`). Every attempt
 * sends the same `out_request_no`, so the gateway refunds once however often it is retried.
 * After the activity's retries are spent the workflow waits, visibly (`refund_stuck`), for
 * `retrySignal`.
 */
export const REFUND_WORKFLOW_TYPE = 'refundWorkflow';

export type RefundInput = { refundNo: string };

export type RefundOutcome = 'succeeded' | 'failed';

export type RefundResult = { refundNo: string; outcome: RefundOutcome };

export const retrySignal = defineSignal('refund.retry');

export const REFUND_STAGES = { refunding: 'refunding', stuck: 'refund_stuck', succeeded: 'refund_succeeded', failed: 'refund_failed' } as const;

export function refundWorkflowId(refundNo: string): string {
  return `refund:${refundNo}`;
}

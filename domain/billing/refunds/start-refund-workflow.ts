import type { DomainDeps } from '../../deps.js';
import { REFUND_STAGES, REFUND_WORKFLOW_TYPE, type RefundInput, type RefundResult, refundWorkflowId } from '../../../workflows/refund/contract.js';
import { SearchAttr } from '../../../workflows/search-attributes.js';
import type { RefundRecord } from '../../../db/models/money.js';

/**
 * Starts `refund:<refund_no>` (a running one is reused) and waits up to `waitMs` for its
 * outcome, so that a quick gateway answers the admin's request directly; a slow one stays
 * `processing` and finishes in the background.
 */
export async function startRefundWorkflow(
  deps: DomainDeps,
  refund: RefundRecord,
  invoiceNo: string,
  waitMs: number,
): Promise<RefundResult | null> {
  if (!deps.temporal) throw new Error('no Temporal client in these deps: cannot start the refund workflow');
  const client = await deps.temporal.client();
  const input: RefundInput = { refundNo: refund.refund_no };
  const handle = await client.workflow.start(REFUND_WORKFLOW_TYPE, {
    workflowId: refundWorkflowId(refund.refund_no),
    taskQueue: deps.config.temporal.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [
      { key: SearchAttr.InvoiceNo, value: invoiceNo },
      { key: SearchAttr.UserId, value: refund.user_id },
      { key: SearchAttr.BusinessStage, value: REFUND_STAGES.refunding },
    ],
  });
  try {
    // The deadline cancels the long poll itself, so a slow refund leaves no call behind.
    return await client.withDeadline(Date.now() + waitMs, () => handle.result() as Promise<RefundResult>);
  } catch (err) {
    deps.logger.debug({ err, refundNo: refund.refund_no }, 'refund workflow not finished within the wait');
    return null;
  }
}

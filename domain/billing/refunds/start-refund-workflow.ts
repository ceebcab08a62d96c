import type { WorkflowHandle } from '@temporalio/client';
import { BACKGROUND_DEADLINE_MS, REQUEST_DEADLINE_MS } from '../../../lib/temporal.js';
import type { DomainDeps } from '../../deps.js';
import { intentKeys, markIntentDone } from '../../outbox/intents.js';
import { REFUND_STAGES, REFUND_WORKFLOW_TYPE, type RefundInput, type RefundResult, refundWorkflowId } from '../../../workflows/refund/contract.js';
import { SearchAttr } from '../../../workflows/search-attributes.js';
import { sqlOne } from '../../../db/sql.js';
import type { RefundRecord } from '../../../db/models/billing.js';

type StartedRefund = Pick<RefundRecord, 'refund_no' | 'user_id'>;

/** Starts `refund:<refund_no>` (a running one is reused), with the given deadline on the call. */
async function startRefund(deps: DomainDeps, refund: StartedRefund, invoiceNo: string, deadlineMs: number): Promise<WorkflowHandle> {
  if (!deps.temporal) throw new Error('no Temporal client in these deps: cannot start the refund workflow');
  const input: RefundInput = { refundNo: refund.refund_no };
  return deps.temporal.withDeadline(
    (client) =>
      client.workflow.start(REFUND_WORKFLOW_TYPE, {
        workflowId: refundWorkflowId(refund.refund_no),
        taskQueue: deps.config.temporal.taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        typedSearchAttributes: [
          { key: SearchAttr.InvoiceNo, value: invoiceNo },
          { key: SearchAttr.UserId, value: refund.user_id },
          { key: SearchAttr.BusinessStage, value: REFUND_STAGES.refunding },
        ],
      }),
    deadlineMs,
  );
}

/**
 * Starts `refund:<refund_no>` and waits up to `waitMs` for its outcome, so that a quick gateway
 * answers the admin's request directly; a slow one stays `processing` and finishes in the
 * background. The refund's `refund:<refund_no>` outbox row (written with the refund) is the
 * promise: when the start cannot be made now (Temporal unreachable), the answer is `processing`
 * and the relay starts the workflow (`resumeRefundWorkflow`).
 */
export async function startRefundWorkflow(deps: DomainDeps, refund: RefundRecord, invoiceNo: string, waitMs: number): Promise<RefundResult | null> {
  let handle: WorkflowHandle;
  try {
    handle = await startRefund(deps, refund, invoiceNo, REQUEST_DEADLINE_MS);
    await markIntentDone(deps, intentKeys.refund(refund.refund_no));
  } catch (err) {
    deps.logger.warn({ err, refundNo: refund.refund_no }, 'refund workflow not started now; the outbox relay starts it');
    return null;
  }
  try {
    // The deadline cancels the long poll itself, so a slow refund leaves no call behind.
    return await handle.client.withDeadline(Date.now() + waitMs, () => handle.result() as Promise<RefundResult>);
  } catch (err) {
    deps.logger.debug({ err, refundNo: refund.refund_no }, 'refund workflow not finished within the wait');
    return null;
  }
}

/** The outbox relay's side: starts the workflow of a refund still `processing`; a finished one needs none. */
export async function resumeRefundWorkflow(deps: DomainDeps, refundNo: string): Promise<string | null> {
  const refund = await sqlOne<StartedRefund & { status: string; invoice_no: string }>(
    deps,
    'SELECT r.refund_no, r.user_id, r.status, i.invoice_no FROM refunds r JOIN invoices i ON i.id = r.invoice_id WHERE r.refund_no = $1',
    [refundNo],
  );
  if (!refund) return 'refund not found';
  if (refund.status !== 'processing') return `refund already ${refund.status}`;
  await startRefund(deps, refund, refund.invoice_no, BACKGROUND_DEADLINE_MS);
  return null;
}

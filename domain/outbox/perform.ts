import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { BACKGROUND_DEADLINE_MS } from '../../lib/temporal.js';
import { dispatchFulfilment } from '../upstream-work/dispatch-fulfilment.js';
import { resumePaymentWorkflow, signalPaymentWorkflow } from '../billing/payments/start-payment-workflow.js';
import { resumeRefundWorkflow } from '../billing/refunds/start-refund-workflow.js';
import type { DomainDeps } from '../deps.js';
import { sendTicketReplyNotice } from '../support/ticket-notices.js';
import { type IntentKind, shortError } from './intents.js';
import { deliverUpstreamDecision } from '../upstream-work/decide.js';
import { resumeVerificationWorkflow, signalVerificationWorkflow } from '../verification/workflow-start.js';

export type ClaimedIntent = { id: string; kind: IntentKind; key: string; payload: Record<string, unknown>; attempts: number };

/** A decision the workflow refused (it no longer waits, or is gone): done, with the reason; retrying cannot change it. */
function refused(err: unknown): string | null {
  if (err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError) return `refused: ${shortError(err)}`;
  throw err;
}

/**
 * Performs one intent. Every kind is idempotent, so a row performed twice (the writer's own try
 * and the relay, two relays after a lease ran out) changes nothing the second time (a second
 * "look now" signal only makes the payment workflow look once more): workflow
 * starts use deterministic ids (an execution that already started is success), decisions use
 * the row's key as update id. Answers a note when there was nothing to do; throws to be retried.
 */
export async function performIntent(deps: DomainDeps, intent: ClaimedIntent): Promise<string | null> {
  const p = intent.payload;
  switch (intent.kind) {
    case 'start_fulfilment': {
      const outcome = await dispatchFulfilment(deps, Number(p['invoice_id']));
      return outcome.dispatched ? null : outcome.reason;
    }
    case 'start_payment':
      return resumePaymentWorkflow(deps, String(p['payment_no']));
    case 'signal_payment':
      return signalPaymentWorkflow(deps, String(p['invoice_no']));
    case 'start_refund':
      return resumeRefundWorkflow(deps, String(p['refund_no']));
    case 'decide_provisioning':
    case 'decide_service_order':
      return deliverUpstreamDecision(deps, intent, BACKGROUND_DEADLINE_MS).then(() => null, refused);
    case 'ticket_notice':
      return sendTicketReplyNotice(deps, Number(p['reply_id']));
    case 'start_verification':
      return resumeVerificationWorkflow(deps, String(p['attempt_no']));
    case 'signal_verification':
      return signalVerificationWorkflow(deps, String(p['attempt_no']));
    default: {
      const unknown: never = intent.kind;
      throw new Error(`unknown outbox intent kind ${String(unknown)}`);
    }
  }
}

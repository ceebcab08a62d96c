import { WorkflowNotFoundError } from '@temporalio/client';
import { BACKGROUND_DEADLINE_MS } from '../../../lib/temporal.js';
import type { DomainDeps } from '../../deps.js';
import {
  INVOICE_PAYMENT_WORKFLOW_TYPE,
  type InvoicePaymentInput,
  invoicePaymentWorkflowId,
  PAYMENT_STAGES,
  paymentNotifiedSignal,
  paymentOpenedSignal,
} from '../../../workflows/invoice-payment/contract.js';
import { SearchAttr } from '../../../workflows/search-attributes.js';
import { sqlOne } from '../../../db/sql.js';
import type { PaymentRecord } from '../../../db/models/billing.js';

type OpenedPayment = Pick<PaymentRecord, 'payment_no' | 'user_id' | 'expires_at'>;

/**
 * Starts the invoice's payment workflow, or reuses the running one (like conflict policy
 * USE_EXISTING) and tells it about the payment: signal-with-start with `payment.opened` (the
 * workflow ignores a payment it already follows, so a repeat changes nothing). The call gets
 * `deadlineMs`. The payment's `payment:<payment_no>` outbox row is the promise: the relay
 * repeats this if the caller fails (`resumePaymentWorkflow`).
 */
export async function startPaymentWorkflow(deps: DomainDeps, input: { invoiceNo: string; payment: OpenedPayment }, deadlineMs: number): Promise<void> {
  if (!deps.temporal) throw new Error('no Temporal client in these deps: cannot start the payment workflow');
  const args: InvoicePaymentInput = {
    invoiceNo: input.invoiceNo,
    paymentNo: input.payment.payment_no,
    userId: input.payment.user_id,
    expiresAt: input.payment.expires_at.toISOString(),
    pollIntervalsSeconds: deps.config.payments.qrPollIntervalsSeconds,
  };
  await deps.temporal.withDeadline(
    (client) =>
      client.workflow.signalWithStart(INVOICE_PAYMENT_WORKFLOW_TYPE, {
        workflowId: invoicePaymentWorkflowId(input.invoiceNo),
        taskQueue: deps.config.temporal.taskQueue,
        args: [args],
        signal: paymentOpenedSignal,
        signalArgs: [{ paymentNo: args.paymentNo, expiresAt: args.expiresAt }],
        typedSearchAttributes: [
          { key: SearchAttr.InvoiceNo, value: input.invoiceNo },
          { key: SearchAttr.UserId, value: input.payment.user_id },
          { key: SearchAttr.BusinessStage, value: PAYMENT_STAGES.awaiting },
        ],
      }),
    deadlineMs,
  );
}

/**
 * The outbox relay's side of `startPaymentWorkflow`: starts the workflow of a payment that is
 * still pending; one that was paid or closed meanwhile needs no follower (its fulfilment has its
 * own outbox row), which the answer says.
 */
export async function resumePaymentWorkflow(deps: DomainDeps, paymentNo: string): Promise<string | null> {
  const payment = await sqlOne<OpenedPayment & { status: string; invoice_no: string }>(
    deps,
    `SELECT p.payment_no, p.user_id, p.expires_at, p.status, i.invoice_no FROM payments p JOIN invoices i ON i.id = p.invoice_id WHERE p.payment_no = $1`,
    [paymentNo],
  );
  if (!payment) return 'payment not found';
  if (payment.status !== 'pending') return `payment already ${payment.status}`;
  await startPaymentWorkflow(deps, { invoiceNo: payment.invoice_no, payment }, BACKGROUND_DEADLINE_MS);
  return null;
}

/**
 * The outbox relay's `signal_payment` (written by a notification's settlement): tells the
 * invoice's payment workflow to look at our records now instead of at its next poll. A finished or
 * absent workflow needs nothing (the note says so); Temporal away throws, and the row is retried.
 */
export async function signalPaymentWorkflow(deps: DomainDeps, invoiceNo: string): Promise<string | null> {
  if (!deps.temporal) throw new Error('no Temporal client in these deps: cannot signal the payment workflow');
  try {
    await deps.temporal.withDeadline((client) => client.workflow.getHandle(invoicePaymentWorkflowId(invoiceNo)).signal(paymentNotifiedSignal), BACKGROUND_DEADLINE_MS);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'payment workflow not running';
    throw err;
  }
  return null;
}

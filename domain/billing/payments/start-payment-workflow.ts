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
import type { PaymentRecord } from '../../../db/models/money.js';

/**
 * Starts the invoice's payment workflow, or reuses the running one (like conflict policy
 * USE_EXISTING) and tells it about the payment: signal-with-start with `payment.opened`.
 */
export async function startPaymentWorkflow(deps: DomainDeps, input: { invoiceNo: string; payment: PaymentRecord }): Promise<void> {
  if (!deps.temporal) throw new Error('no Temporal client in these deps: cannot start the payment workflow');
  const client = await deps.temporal.client();
  const args: InvoicePaymentInput = {
    invoiceNo: input.invoiceNo,
    paymentNo: input.payment.payment_no,
    userId: input.payment.user_id,
    expiresAt: input.payment.expires_at.toISOString(),
    pollIntervalsSeconds: deps.config.payments.qrPollIntervalsSeconds,
  };
  await client.workflow.signalWithStart(INVOICE_PAYMENT_WORKFLOW_TYPE, {
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
  });
}

/** Tells the invoice's payment workflow to look at our records now; a finished or absent workflow is fine. */
export async function signalPaymentWorkflow(deps: DomainDeps, invoiceNo: string): Promise<void> {
  if (!deps.temporal) return;
  try {
    const client = await deps.temporal.client();
    await client.workflow.getHandle(invoicePaymentWorkflowId(invoiceNo)).signal(paymentNotifiedSignal);
  } catch (err) {
    deps.logger.debug({ err, invoiceNo }, 'payment workflow not signalled (finished or not running)');
  }
}

import { Context } from '@temporalio/activity';
import { ErrorCode } from '../lib/errors.js';
import { systemAudit } from '../domain/billing/audit.js';
import { dispatchFulfilment } from '../domain/upstream-work/dispatch-fulfilment.js';
import { FulfilmentImpossibleError } from '../domain/upstream-work/fulfilment-error.js';
import { checkQrPayment } from '../domain/billing/payments/check-qr-payment.js';
import { closeQrPayment } from '../domain/billing/payments/close-qr-payment.js';
import { executeOriginalRefund } from '../domain/billing/refunds/execute-original-refund.js';
import type { DomainDeps } from '../domain/deps.js';
import { PAYMENT_FAILURES } from '../workflows/invoice-payment/contract.js';
import { classifier, type FailurePolicy } from './classify.js';

/** The activity's workflow id as the trace id of what it writes (Temporal UI ↔ money rows). */
function audit() {
  try {
    return systemAudit(Context.current().info.workflowExecution?.workflowId ?? '');
  } catch {
    return systemAudit();
  }
}

/**
 * Expected business failures do not get better by retrying: they become non-retryable
 * ApplicationFailures with explicit types (see ./classify.ts); anything else (gateway down,
 * database gone) is thrown as is and retried by the workflow's policy.
 */
const MONEY: FailurePolicy = {
  refused: (err) => (err.code === ErrorCode.PAYMENT_AMOUNT_MISMATCH ? PAYMENT_FAILURES.anomaly : `BillingError${err.code}`),
  final: (err) => (err instanceof FulfilmentImpossibleError ? 'FulfilmentImpossible' : null),
};
const classified = classifier(MONEY);

/** Activities of the payment and refund workflows: thin adapters over domain/billing. */
export function createBillingActivities(deps: DomainDeps) {
  return {
    checkQrPayment: (input: { paymentNo: string }) => classified(() => checkQrPayment(deps, input.paymentNo, audit())),
    closeQrPayment: (input: { paymentNo: string }) => classified(() => closeQrPayment(deps, input.paymentNo, audit())),
    // Payment workflows from before patch `fulfilment-by-outbox` still call it when they resume.
    dispatchInvoiceFulfilment: (input: { invoiceId: number }) => classified(() => dispatchFulfilment(deps, input.invoiceId)),
    executeOriginalRefund: (input: { refundNo: string }) => classified(() => executeOriginalRefund(deps, input.refundNo, audit())),
  };
}

import { ApplicationFailure, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { failureType, pollUntil, rootCauseMessage, setStage as stage, type Wake } from '../workflow-steps.js';
import {
  type InvoicePaymentInput,
  type InvoicePaymentResult,
  type OpenedPayment,
  PAYMENT_FAILURES,
  PAYMENT_STAGES,
  type PaymentCheck,
  paymentNotifiedSignal,
  paymentOpenedSignal,
} from './contract.js';

// A look at our records and the gateway: failures retry quickly; the poll loop itself is the long wait.
const { checkQrPayment } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 5 },
});

// Closing must happen eventually: retried without limit (gateway down), visible as a pending activity.
const { closeQrPayment } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});

// Histories recorded before patch `fulfilment-by-outbox` only: the outbox relay dispatches now.
const { dispatchInvoiceFulfilment } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 5 },
});

/**
 * Follows the QR payments of one invoice until one is paid or the last one is closed. Each
 * payment: wait for the notification signal or the next poll (backoff from the input, the
 * last interval repeating), look (our records, else the gateway's query, settling when paid),
 * and at the end of the window close the trade (which settles instead if it turns out paid).
 * Once paid it ends: the settlement's outbox row has the relay start the fulfilment (patch
 * `fulfilment-by-outbox`; runs recorded before it dispatched here, through an idempotent activity).
 */
export async function invoicePaymentWorkflow(input: InvoicePaymentInput): Promise<InvoicePaymentResult> {
  const queue: OpenedPayment[] = [{ paymentNo: input.paymentNo, expiresAt: input.expiresAt }];
  const seen = new Set<string>([input.paymentNo]);
  const wake: Wake = { notified: false };
  setHandler(paymentNotifiedSignal, () => {
    wake.notified = true;
  });
  setHandler(paymentOpenedSignal, (opened) => {
    if (seen.has(opened.paymentNo)) return;
    seen.add(opened.paymentNo);
    queue.push(opened);
  });

  const follow = async (payment: OpenedPayment): Promise<PaymentCheck> => {
    stage(PAYMENT_STAGES.awaiting);
    const settled = await pollUntil({
      deadline: Date.parse(payment.expiresAt),
      intervalsSeconds: input.pollIntervalsSeconds,
      wake,
      look: async () => {
        try {
          const check = await checkQrPayment({ paymentNo: payment.paymentNo });
          return check.state !== 'pending' ? check : null;
        } catch (err) {
          // The gateway or our database being away only delays the next look; a wrong amount stops here, visibly.
          if (failureType(err) === PAYMENT_FAILURES.anomaly) throw ApplicationFailure.nonRetryable(rootCauseMessage(err), PAYMENT_FAILURES.anomaly);
          return null;
        }
      },
    });
    if (settled !== null) return settled;
    stage(PAYMENT_STAGES.closing);
    return closeQrPayment({ paymentNo: payment.paymentNo });
  };

  let result: InvoicePaymentResult = { paymentNo: input.paymentNo, outcome: 'closed', dispatched: false };
  for (let next = queue.shift(); next; next = queue.shift()) {
    const check = await follow(next);
    if (check.state === 'closed') {
      stage(PAYMENT_STAGES.closed);
      result = { paymentNo: next.paymentNo, outcome: 'closed', dispatched: false };
      continue;
    }
    if (patched('fulfilment-by-outbox')) {
      stage(PAYMENT_STAGES.settled);
      return { paymentNo: next.paymentNo, outcome: 'paid', dispatched: false };
    }
    stage(PAYMENT_STAGES.dispatching);
    try {
      const dispatched = await dispatchInvoiceFulfilment({ invoiceId: check.invoiceId });
      stage(PAYMENT_STAGES.settled);
      return { paymentNo: next.paymentNo, outcome: 'paid', dispatched: dispatched.dispatched };
    } catch (err) {
      stage(PAYMENT_STAGES.dispatchFailed);
      throw ApplicationFailure.nonRetryable(`paid, but fulfilment was not dispatched: ${rootCauseMessage(err)}`, PAYMENT_FAILURES.dispatch);
    }
  }
  return result;
}

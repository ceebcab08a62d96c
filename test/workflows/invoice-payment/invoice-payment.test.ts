import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createWorkers } from '../../../activities/worker.js';
import { INVOICE_PAYMENT_WORKFLOW_TYPE, invoicePaymentWorkflowId, PAYMENT_STAGES } from '../../../workflows/invoice-payment/contract.js';
import { SearchAttr } from '../../../workflows/search-attributes.js';
import { recordHistory } from '../../helpers/histories.js';
import { buyerPays, createProduct, expectBooksBalanced, purchase, registerClient, startBillingPlatform, type BillingPlatform } from '../../helpers/billing.js';
import { eventually } from '../../helpers/wait.js';

let platform: BillingPlatform;

beforeAll(async () => {
  platform = await startBillingPlatform();
});
afterAll(() => platform?.close());

async function stopped(workers: Worker[]): Promise<void> {
  for (const w of workers) w.shutdown();
  await eventually(async () => (workers.every((w) => w.getState() === 'STOPPED') ? true : null));
}

describe('invoice payment workflow', () => {
  it('survives a worker restart in the middle of its wait and settles by polling with the new worker', async () => {
    const product = await createProduct(platform, '33.00');
    const client = await registerClient(platform);
    const invoice = await purchase(platform, client, product.id);
    const base = platform.deps.config.publicBaseUrl;
    // Notifications go nowhere: only the workflow's own polling can settle this payment.
    platform.deps.config.publicBaseUrl = 'http://127.0.0.1:9';
    let started;
    try {
      started = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/qrpay`, { token: client.token });
    } finally {
      platform.deps.config.publicBaseUrl = base;
    }
    const paymentNo = started.body.data.payment_no as string;
    const handle = platform.temporal.workflow.getHandle(invoicePaymentWorkflowId(invoice.invoice_no));
    await eventually(async () => ((platform.qrpay.control.stats().calls['qrpay.trade.query'] ?? 0) >= 1 ? true : null));
    expect((await handle.describe()).typedSearchAttributes.get(SearchAttr.BusinessStage)).toBe(PAYMENT_STAGES.awaiting);

    await stopped(platform.workers);
    await buyerPays(started.body.data.qr_code_url);
    expect((await platform.deps.db.models.Payment.findOne({ where: { payment_no: paymentNo } }))?.status).toBe('pending');

    const connection = await NativeConnection.connect({ address: platform.deps.config.temporal.address });
    const fresh = await createWorkers(platform.deps, connection, { workflowBundlePath: inject('workflowBundlePath') });
    const running = Promise.all(fresh.map((w) => w.run()));
    try {
      // Settled by its own poll; the settlement's outbox row has the relay start the fulfilment.
      expect(await handle.result()).toEqual({ paymentNo, outcome: 'paid', dispatched: false });
    } finally {
      await stopped(fresh);
      await running;
      await connection.close();
    }
    expect((await handle.describe()).typedSearchAttributes.get(SearchAttr.BusinessStage)).toBe(PAYMENT_STAGES.settled);
    expect(await platform.deps.db.models.Payment.findOne({ where: { payment_no: paymentNo } })).toMatchObject({ status: 'paid', paid_source: 'poll' });
    expect(await eventually(async () => (await platform.deps.db.models.Invoice.findByPk(invoice.id))?.dispatched_at ?? null)).toBeInstanceOf(Date);
    // Recorded under its own name: `paid-by-poll-across-restart` is the run from before patch `fulfilment-by-outbox`.
    await recordHistory(handle, INVOICE_PAYMENT_WORKFLOW_TYPE, 'paid-by-poll-across-restart-fulfilled-by-outbox');
    await expectBooksBalanced(platform);
  });
});

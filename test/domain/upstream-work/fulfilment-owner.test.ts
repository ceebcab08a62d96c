import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchFulfilment } from '../../../domain/upstream-work/dispatch-fulfilment.js';
import { repairFulfilmentOutbox } from '../../../domain/upstream-work/repair-fulfilment-outbox.js';
import { relayDueIntents, startOutboxRelay } from '../../../domain/outbox/relay.js';
import { provisionWorkflowId } from '../../../workflows/provisioning/contract.js';
import { adjustBalance, createProduct, expectBooksBalanced, purchase, registerClient } from '../../helpers/billing.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { eventually } from '../../helpers/wait.js';

/**
 * The outbox row is the one owner of fulfilment (docs/fulfilment.md "Durability"). No worker runs
 * here, so no relay either unless a test starts one: a payment's request must start nothing by
 * itself, the relay starts it once, and the hourly backstop only repairs the outbox.
 */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

type OutboxRow = { attempts: number; done_at: Date | null; next_attempt_at: Date };

async function outboxRow(invoiceId: number): Promise<OutboxRow | null> {
  const [row] = await platform.deps.db.read<OutboxRow>('SELECT attempts, done_at, next_attempt_at FROM outbox WHERE key = $1', [`fulfil:${invoiceId}`]);
  return row ?? null;
}

/** A purchase paid from the balance through the API; answers the invoice and its service id. */
async function paidPurchase() {
  const product = await createProduct(platform, '7.00');
  const client = await registerClient(platform);
  await adjustBalance(platform, client.id, '7.00');
  const invoice = await purchase(platform, client, product.id);
  const paid = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token });
  expect(paid.body).toMatchObject({ code: 0, data: { status: 'paid' } });
  const service = await platform.deps.db.models.Service.findOne({ where: { invoice_id: invoice.id } });
  return { invoiceId: invoice.id as number, serviceId: service?.id ?? 0 };
}

async function provisioningWorkflows(serviceId: number): Promise<number> {
  let count = 0;
  for await (const execution of platform.temporal.workflow.list({ query: `WorkflowId = '${provisionWorkflowId(serviceId)}'` })) if (execution.workflowId) count += 1;
  return count;
}

async function started(serviceId: number): Promise<boolean> {
  try {
    await platform.temporal.workflow.getHandle(provisionWorkflowId(serviceId)).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

async function dispatchedAt(invoiceId: number): Promise<Date | null> {
  return (await platform.deps.db.models.Invoice.findByPk(invoiceId))?.dispatched_at ?? null;
}

describe('fulfilment owned by the outbox', () => {
  it('a balance payment commits a due outbox row and starts nothing itself; the relay then starts exactly one provisioning', async () => {
    const { invoiceId, serviceId } = await paidPurchase();
    const row = await outboxRow(invoiceId);
    expect(row).toMatchObject({ attempts: 0, done_at: null });
    // Due at once: nobody else tries first.
    expect(row?.next_attempt_at.getTime()).toBeLessThanOrEqual(Date.now());
    // Time for an after-commit try, had the request path kept one.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await started(serviceId)).toBe(false);
    expect(await dispatchedAt(invoiceId)).toBeNull();

    const relay = startOutboxRelay(platform.deps);
    try {
      expect(await eventually(() => dispatchedAt(invoiceId))).toBeInstanceOf(Date);
    } finally {
      await relay.stop();
    }
    expect(await started(serviceId)).toBe(true);
    expect(await outboxRow(invoiceId)).toMatchObject({ attempts: 1 });
    expect((await outboxRow(invoiceId))?.done_at).not.toBeNull();
    // Performed again (a second relay after a lost lease): nothing new.
    expect(await dispatchFulfilment(platform.deps, invoiceId)).toMatchObject({ dispatched: false, reason: 'already_dispatched' });
    expect(await relayDueIntents(platform.deps)).toMatchObject({ claimed: 0 });
    expect(await eventually(async () => ((await provisioningWorkflows(serviceId)) > 0 ? provisioningWorkflows(serviceId) : null))).toBe(1);
    await expectBooksBalanced(platform);
  });

  it('the hourly backstop repairs a missing or stuck outbox row, reports the invoices, and never dispatches', async () => {
    const missing = await paidPurchase();
    const stuck = await paidPurchase();
    expect(await platform.deps.db.read('DELETE FROM outbox WHERE key = $1 RETURNING id', [`fulfil:${missing.invoiceId}`])).toHaveLength(1);
    // Done although the invoice was never dispatched (a row closed by hand, say).
    await platform.deps.db.read('UPDATE outbox SET done_at = now() WHERE key = $1 RETURNING id', [`fulfil:${stuck.invoiceId}`]);

    const summary = await repairFulfilmentOutbox(platform.deps, { graceSeconds: 0 });
    expect(summary).toMatchObject({ found: 2, inserted: 1, reopened: 1, waiting: 0, failed: 0 });
    expect(summary.invoiceIds).toEqual({ inserted: [missing.invoiceId], reopened: [stuck.invoiceId], waiting: [] });
    for (const paid of [missing, stuck]) {
      expect(await outboxRow(paid.invoiceId)).toMatchObject({ done_at: null });
      expect((await outboxRow(paid.invoiceId))?.next_attempt_at.getTime()).toBeLessThanOrEqual(Date.now());
      expect(await dispatchedAt(paid.invoiceId)).toBeNull();
      expect(await started(paid.serviceId)).toBe(false);
    }
    // Run again before the relay: the rows are the relay's now, reported as waiting, still nothing dispatched.
    const again = await repairFulfilmentOutbox(platform.deps, { graceSeconds: 0 });
    expect(again).toMatchObject({ found: 2, inserted: 0, reopened: 0, waiting: 2 });

    expect(await relayDueIntents(platform.deps)).toMatchObject({ claimed: 2, done: 2, failed: 0 });
    for (const paid of [missing, stuck]) {
      expect(await dispatchedAt(paid.invoiceId)).toBeInstanceOf(Date);
      expect(await started(paid.serviceId)).toBe(true);
    }
    expect(await repairFulfilmentOutbox(platform.deps, { graceSeconds: 0 })).toMatchObject({ found: 0 });
    await expectBooksBalanced(platform);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inSequelizeTransaction, inTransaction, sqlOne, type Tx } from '../../db/sql.js';
import type { RefundRecord } from '../../db/models/billing.js';
import { REFUND_COLUMNS } from '../../db/models/billing.js';
import { systemAudit } from '../../domain/billing/audit.js';
import { insertInvoice } from '../../domain/billing/invoices/insert-invoice.js';
import { settleInvoice } from '../../domain/billing/payments/settle-invoice.js';
import { completeRefund } from '../../domain/billing/refunds/complete-refund.js';
import { recordServiceEvent } from '../../domain/services/service-events.js';
import { provisioningWork } from '../../domain/upstream-work/kinds.js';
import { recordAdminRetry } from '../../domain/upstream-work/record.js';
import { money } from '../../lib/money.js';
import { metricsRegistry } from '../../lib/metrics.js';
import { adminActor } from '../../lib/actor.js';
import { createUser, seedService } from '../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js';

/**
 * The money and provisioning counters count what committed (docs/operations.md "Metrics"): a
 * transaction that reaches the counted statement and then rolls back leaves the counter as it
 * was; the same work committed counts once. Real database, counters read from the registry.
 */
let platform: TestPlatform;
let userId: number;
const audit = systemAudit('metrics-test');

beforeAll(async () => {
  platform = await startTestPlatform();
  userId = (await createUser(platform)).id;
});
afterAll(async () => {
  await platform?.close();
});

async function counter(name: string, labels: Record<string, string>): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric(name)?.get();
  const series = metric?.values.find((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value));
  return series?.value ?? 0;
}

class RolledBack extends Error {}

/** Runs `work` in a transaction that then rolls back. */
async function thenRollBack(open: typeof inTransaction, work: (tx: Tx) => Promise<unknown>): Promise<void> {
  await expect(
    open(platform.deps, async (tx) => {
      await work(tx);
      throw new RolledBack('roll back');
    }),
  ).rejects.toBeInstanceOf(RolledBack);
}

async function unpaidDeduction(tx: Tx) {
  const { invoice } = await insertInvoice(
    platform.deps,
    { userId, type: 'deduction', status: 'unpaid', subject: '测试扣费', amount: '0.00', items: [], audit },
    tx,
  );
  return invoice;
}

async function settle(tx: Tx) {
  const invoice = await unpaidDeduction(tx);
  await settleInvoice(platform.deps, invoice, { balance: money(0), thirdParty: money(0), channel: 'free', paymentId: null }, audit, tx);
}

/** A paid purchase and a processing balance refund of part of it. */
async function refundable(tx: Tx): Promise<RefundRecord> {
  const { invoice } = await insertInvoice(
    platform.deps,
    {
      userId,
      type: 'purchase',
      status: 'paid',
      subject: '新购：测试',
      amount: '10.00',
      balanceAmount: '10.00',
      paymentChannel: 'balance',
      settled: true,
      items: [],
      order: { productId: null, billingPeriod: 'monthly', quantity: 1, config: {} },
      audit,
    },
    tx,
  );
  const refund = await sqlOne<RefundRecord>(
    platform.deps,
    `INSERT INTO refunds (user_id, invoice_id, amount, balance_part, third_party_part, refund_method, status, operator_type)
     VALUES ($1, $2, '4.00', '4.00', '0.00', 'balance', 'processing', 'system') RETURNING ${REFUND_COLUMNS}`,
    [userId, invoice.id],
    tx,
  );
  if (!refund) throw new Error('refund not written');
  return refund;
}

describe('a counter incremented inside a transaction', () => {
  it('payments_settled_total counts a settlement once it commits, and not one rolled back', async () => {
    const labels = { method: 'free' };
    const before = await counter('payments_settled_total', labels);
    await thenRollBack(inTransaction, settle);
    expect(await counter('payments_settled_total', labels)).toBe(before);
    await inTransaction(platform.deps, settle);
    expect(await counter('payments_settled_total', labels)).toBe(before + 1);
  });

  it('refunds_total counts a completed refund once it commits, and not one rolled back', async () => {
    const labels = { destination: 'balance', outcome: 'completed' };
    const before = await counter('refunds_total', labels);
    await thenRollBack(inTransaction, async (tx) => completeRefund(platform.deps, await refundable(tx), audit, tx));
    expect(await counter('refunds_total', labels)).toBe(before);
    await inTransaction(platform.deps, async (tx) => completeRefund(platform.deps, await refundable(tx), audit, tx));
    expect(await counter('refunds_total', labels)).toBe(before + 1);
  });

  it('provisionings_total counts a step once its row commits, and not one rolled back (either kind of transaction)', async () => {
    const serviceId = await seedService(platform, { userId, status: 'pending', nextDueAt: null });
    const step = { serviceId, kind: 'provision', stage: 'bind', status: 'succeeded' as const, message: '测试' };
    const bind = { stage: 'bind', outcome: 'succeeded' };
    const retry = { stage: 'retry', outcome: 'info' };
    const retried = (tx: Tx) => recordAdminRetry(platform.deps, provisioningWork(serviceId), { retriedBy: adminActor({ id: 1, username: 'root' }), workflowId: 'wf' }, tx);
    const [bindBefore, retryBefore] = [await counter('provisionings_total', bind), await counter('provisionings_total', retry)];

    await thenRollBack(inSequelizeTransaction as typeof inTransaction, (t) => recordServiceEvent(platform.deps, step, t as never));
    await thenRollBack(inTransaction, retried);
    expect(await counter('provisionings_total', bind)).toBe(bindBefore);
    expect(await counter('provisionings_total', retry)).toBe(retryBefore);

    // A savepoint inside a Sequelize transaction counts with the outer commit.
    await platform.deps.db.sequelize.transaction((outer) => platform.deps.db.sequelize.transaction({ transaction: outer }, (inner) => recordServiceEvent(platform.deps, step, inner)));
    await inTransaction(platform.deps, retried);
    expect(await counter('provisionings_total', bind)).toBe(bindBefore + 1);
    expect(await counter('provisionings_total', retry)).toBe(retryBefore + 1);
  });
});

import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordIntent, shortError } from '../../../domain/outbox/intents.js';
import { relayDueIntents, startOutboxRelay } from '../../../domain/outbox/relay.js';
import { provisionWorkflowId } from '../../../workflows/provisioning/contract.js';
import { adjustBalance, createProduct, purchase, registerClient } from '../../helpers/billing.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { eventually } from '../../helpers/wait.js';

// No worker here, so no relay of the platform's own: each test drives the relay itself.
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

type Row = { key: string; attempts: number; done_at: Date | null; last_error: string | null; next_attempt_at: Date };

async function rows(prefix: string): Promise<Row[]> {
  return platform.deps.db.read<Row>('SELECT key, attempts, done_at, last_error, next_attempt_at FROM outbox WHERE key LIKE $1 ORDER BY key', [`${prefix}%`]);
}

/** An intent whose perform has nothing to do (the refund does not exist): done with a note. */
function noRefund(key: string) {
  return { kind: 'start_refund' as const, key, payload: { refund_no: `RF-${key}` }, delayMs: 0 };
}

type FulfilmentRow = Row & { dispatched_at: Date | null };

async function fulfilmentRows(invoiceIds: number[]): Promise<FulfilmentRow[]> {
  return platform.deps.db.read<FulfilmentRow>(
    `SELECT o.key, o.attempts, o.done_at, o.last_error, o.next_attempt_at, i.dispatched_at
       FROM outbox o JOIN invoices i ON o.key = 'fulfil:' || i.id WHERE i.id = ANY($1) ORDER BY i.id`,
    [invoiceIds],
  );
}

/** Rows earlier tests left to come back (a backoff running out) are set aside, so a pass counts only a test's own. */
async function settleLeftovers(): Promise<void> {
  await platform.deps.db.read("UPDATE outbox SET done_at = now(), last_error = 'set aside by a later test' WHERE done_at IS NULL");
}

/** Purchases paid from the balance through the API, one after the other: each commits its due `fulfil:` row. */
async function paidPurchases(n: number): Promise<Array<{ invoiceId: number; serviceId: number }>> {
  const product = await createProduct(platform, '7.00');
  const client = await registerClient(platform);
  await adjustBalance(platform, client.id, (7 * n).toFixed(2));
  const paid: Array<{ invoiceId: number; serviceId: number }> = [];
  for (let i = 0; i < n; i++) {
    const invoice = await purchase(platform, client, product.id);
    const res = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token });
    expect(res.body).toMatchObject({ code: 0, data: { status: 'paid' } });
    const service = await platform.deps.db.models.Service.findOne({ where: { invoice_id: invoice.id } });
    paid.push({ invoiceId: invoice.id as number, serviceId: service?.id ?? 0 });
  }
  return paid;
}

/** Executions of a service's provisioning workflow in Temporal (0 when never started). */
async function executions(serviceId: number): Promise<number> {
  try {
    await platform.temporal.workflow.getHandle(provisionWorkflowId(serviceId)).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 0;
    throw err;
  }
  let count = 0;
  for await (const execution of platform.temporal.workflow.list({ query: `WorkflowId = '${provisionWorkflowId(serviceId)}'` })) if (execution.workflowId) count += 1;
  return count;
}

describe('the outbox', () => {
  it('records a key once', async () => {
    expect(await recordIntent(platform.deps, noRefund('once:1'))).toBe(true);
    expect(await recordIntent(platform.deps, noRefund('once:1'))).toBe(false);
    expect(await rows('once:')).toHaveLength(1);
    expect(await relayDueIntents(platform.deps)).toEqual({ claimed: 1, done: 1, failed: 0 });
  });

  it('is shared by relays running at once: every row claimed by exactly one of them, then done', async () => {
    for (let i = 0; i < 45; i++) await recordIntent(platform.deps, noRefund(`shared:${String(i).padStart(2, '0')}`));
    const passes = await Promise.all([relayDueIntents(platform.deps), relayDueIntents(platform.deps), relayDueIntents(platform.deps)]);
    expect(passes.reduce((n, p) => n + p.claimed, 0)).toBe(45);
    const after = await rows('shared:');
    expect(after.every((r) => r.attempts === 1 && r.done_at !== null && r.last_error === 'refund not found')).toBe(true);
  });

  it('leaves a row that is not due yet (its writer is still trying it) and takes it once due', async () => {
    await recordIntent(platform.deps, { ...noRefund('later:1'), delayMs: 60_000 });
    await relayDueIntents(platform.deps);
    expect((await rows('later:'))[0]).toMatchObject({ attempts: 0, done_at: null });
    await platform.deps.db.read("UPDATE outbox SET next_attempt_at = now() WHERE key = 'later:1'");
    await relayDueIntents(platform.deps);
    expect((await rows('later:'))[0]?.done_at).not.toBeNull();
  });

  it('keeps a failing row with its short error and backs off, never dropping it', async () => {
    // A fulfilment of an invoice that does not exist is "not paid": done. One of an unknown kind fails.
    await platform.deps.db.read("INSERT INTO outbox (kind, key, payload) VALUES ('decide_provisioning', 'failing:1', '{\"service_id\": 0, \"decision\": {}}')");
    const cut = { ...platform.deps, temporal: undefined };
    const first = await relayDueIntents(cut);
    expect(first).toMatchObject({ claimed: 1, done: 0, failed: 1 });
    const [row] = await rows('failing:');
    expect(row).toMatchObject({ attempts: 1, done_at: null });
    expect(row?.last_error).toContain('TemporalUnavailableError');
    expect(row?.next_attempt_at.getTime()).toBeGreaterThan(Date.now());
    expect(await relayDueIntents(cut)).toMatchObject({ claimed: 0 });
  });

  it('wakes its relay on NOTIFY: a row written with no delay is done without waiting for the poll', async () => {
    const relay = startOutboxRelay(platform.deps, { pollMs: 3_600_000 });
    try {
      // Its passes at start and when LISTEN is in place run before the row exists; the poll is an hour away.
      await eventually(async () => (relay.isListening() ? true : null));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await recordIntent(platform.deps, noRefund('notified:1'));
      const done = await eventually(async () => ((await rows('notified:'))[0]?.done_at ? true : null));
      expect(done).toBe(true);
    } finally {
      await relay.stop();
    }
  });

  it('performs many rows in batches with bounded parallelism: two relays racing claim each row once and start each provisioning once', async () => {
    await settleLeftovers();
    const paid = await paidPurchases(23);
    // Small places (5 and 3): each pass claims several batches, the two interleave.
    const passes = await Promise.all([relayDueIntents(platform.deps, { concurrency: 5 }), relayDueIntents(platform.deps, { concurrency: 3 })]);
    expect(passes.reduce((n, p) => n + p.claimed, 0)).toBe(23);
    expect(passes.reduce((n, p) => n + p.done, 0)).toBe(23);
    expect(passes.every((p) => p.claimed > 0 && p.failed === 0)).toBe(true);
    const after = await fulfilmentRows(paid.map((p) => p.invoiceId));
    expect(after).toHaveLength(23);
    expect(after.every((r) => r.attempts === 1 && r.done_at !== null && r.dispatched_at !== null)).toBe(true);
    for (const { serviceId } of paid) expect(await eventually(async () => ((await executions(serviceId)) > 0 ? executions(serviceId) : null))).toBe(1);
    // A later pass finds nothing left to do.
    expect(await relayDueIntents(platform.deps, { concurrency: 5 })).toEqual({ claimed: 0, done: 0, failed: 0 });
  });

  it('a row failing in the middle of a batch backs off alone: the others of its batch are started and marked once, none lost', async () => {
    await settleLeftovers();
    const before = await paidPurchases(6);
    const [broken] = await paidPurchases(1);
    const later = await paidPurchases(6);
    // A paid renewal naming no service cannot be fulfilled: its dispatch throws before any Temporal call.
    await platform.deps.db.read("UPDATE invoices SET type = 'renew', service_id = NULL WHERE id = $1", [broken?.invoiceId]);
    const pass = await relayDueIntents(platform.deps, { concurrency: 13 });
    expect(pass).toEqual({ claimed: 13, done: 12, failed: 1 });
    const good = [...before, ...later];
    const rowsAfter = await fulfilmentRows(good.map((p) => p.invoiceId));
    expect(rowsAfter.every((r) => r.attempts === 1 && r.done_at !== null && r.dispatched_at !== null)).toBe(true);
    for (const { serviceId } of good) expect(await eventually(async () => ((await executions(serviceId)) > 0 ? executions(serviceId) : null))).toBe(1);
    const [failed] = await fulfilmentRows([broken?.invoiceId ?? 0]);
    expect(failed).toMatchObject({ attempts: 1, done_at: null, dispatched_at: null });
    expect(failed?.last_error).toContain('FulfilmentImpossibleError');
    expect(failed?.next_attempt_at.getTime()).toBeGreaterThan(Date.now());
    // Made due again, only the failed row is claimed: the others are not performed twice.
    await platform.deps.db.read('UPDATE outbox SET next_attempt_at = now() WHERE key = $1', [`fulfil:${broken?.invoiceId}`]);
    expect(await relayDueIntents(platform.deps, { concurrency: 13 })).toEqual({ claimed: 1, done: 0, failed: 1 });
    expect((await fulfilmentRows(good.map((p) => p.invoiceId))).every((r) => r.attempts === 1)).toBe(true);
  });

  it('stores errors short, on one line, without credentials', () => {
    const err = new Error('connect failed postgres://app:s3cret@db:5432/x\n  token=abc.def password: hunter2');
    const text = shortError(err);
    expect(text).toBe('Error: connect failed postgres://***@db:5432/x token=*** password: ***');
    expect(shortError(new Error('x'.repeat(1000)))).toHaveLength(300);
  });
});

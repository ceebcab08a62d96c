import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordIntent, shortError } from '../../../domain/outbox/intents.js';
import { relayDueIntents, startOutboxRelay } from '../../../domain/outbox/relay.js';
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

  it('stores errors short, on one line, without credentials', () => {
    const err = new Error('connect failed postgres://app:s3cret@db:5432/x\n  token=abc.def password: hunter2');
    const text = shortError(err);
    expect(text).toBe('Error: connect failed postgres://***@db:5432/x token=*** password: ***');
    expect(shortError(new Error('x'.repeat(1000)))).toHaveLength(300);
  });
});

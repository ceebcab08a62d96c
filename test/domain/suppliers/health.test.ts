import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne, sqlRows } from '../../../db/sql.js';
import { checkUpstreamFunds } from '../../../domain/economics/funds.js';
import { saveSettings } from '../../../domain/settings/settings.js';
import { callSupplier, UpstreamStepError } from '../../../domain/suppliers/supplier-call.js';
import { getSupplierHealth, supplierAvailability } from '../../../domain/suppliers/health.js';
import { clearAllTokens } from '../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { createTestSupplier } from '../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { startUpstreamForPlatform, type UpstreamSandbox } from '../../helpers/upstream-supplier.js';

/**
 * Supplier health against the real upstream sandbox and its fault injection: the calls the
 * platform makes (`callSupplier` → `invokeSupplierPlugin`) are what the breaker counts.
 */
let platform: TestPlatform;
let sandbox: UpstreamSandbox;
let supplierId: number;

const OPEN_SECONDS = 30;

beforeAll(async () => {
  clearAllTokens();
  platform = await startTestPlatform();
  ({ sandbox } = await startUpstreamForPlatform(platform));
  supplierId = (await createTestSupplier(platform, sandbox.baseUrl, 'health-a')).id;
  await saveSettings(platform.deps, null, {
    'economics.health_window_minutes': 5,
    'economics.health_failure_percent': 50,
    'economics.health_min_calls': 6,
    'economics.health_open_seconds': OPEN_SECONDS,
  });
});
afterAll(async () => {
  await sandbox?.stop();
  await platform?.close();
});

/** One balance read, as the funds check makes it; answers the error kind, or 'ok'. */
async function credit(options: { timeoutMs?: number } = {}): Promise<string> {
  try {
    await callSupplier(platform.deps, supplierId, 'upstream.credit', {}, options);
    return 'ok';
  } catch (err) {
    if (err instanceof UpstreamStepError) return `${err.kind}:${err.code}`;
    throw err;
  }
}

async function alerts(kind: string): Promise<Array<{ alert_key: string; detail: Record<string, unknown> }>> {
  return sqlRows(platform.deps, 'SELECT alert_key, detail FROM admin_alerts WHERE kind = $1 ORDER BY id', [kind]);
}

async function breaker(): Promise<{ state: string; episode: number } | null> {
  return sqlOne(platform.deps, 'SELECT state, episode FROM supplier_breakers WHERE supplier_id = $1', [supplierId]);
}

/** Moves the breaker's clock back past its open time (instead of sleeping OPEN_SECONDS). */
async function openTimePassed(): Promise<void> {
  await sqlOne(platform.deps, "UPDATE supplier_breakers SET opened_at = opened_at - interval '1 hour' WHERE supplier_id = $1", [supplierId]);
}

describe('supplier health', () => {
  it('records business refusals without counting them as failures', async () => {
    sandbox.control.failNext(8, 'refused');
    const answers = await Promise.all(Array.from({ length: 8 }, () => credit()));
    expect(answers.every((a) => a.startsWith('permanent:'))).toBe(true);
    const calls = await sqlOne<{ calls: number; failed: number }>(
      platform.deps,
      'SELECT count(*)::int AS calls, count(*) FILTER (WHERE failed)::int AS failed FROM supplier_calls WHERE supplier_id = $1',
      [supplierId],
    );
    expect(calls).toEqual({ calls: 8, failed: 0 });
    expect(await breaker()).toBeNull();
    expect((await supplierAvailability(platform.deps, supplierId)).mayCall).toBe(true);
  });

  it('opens the breaker once failures pass the share, raising exactly one alert however many processes see it', async () => {
    // 8 refusals (not failed), then failures: below 50 % until the concurrent batch.
    sandbox.control.failNext(6, 'html500');
    for (let i = 0; i < 6; i += 1) expect(await credit()).toBe('transient:upstream_unavailable');
    // A timeout (the runtime's own) is a failure too: 7 failed of 15.
    sandbox.control.failNext(1, 'timeout');
    expect(await credit({ timeoutMs: 300 })).toBe('ambiguous:timeout');
    expect(await breaker()).toBeNull();
    // The rest arrive at once (as from several workers): the share passes 50 % during the batch.
    sandbox.control.failNext(10, 'html500');
    await Promise.all(Array.from({ length: 10 }, () => credit()));
    expect(await breaker()).toMatchObject({ state: 'open', episode: 1 });
    const down = await alerts('supplier_down');
    expect(down.map((a) => a.alert_key)).toEqual([`supplier-down:${supplierId}:1`]);
    expect(down[0]?.detail).toMatchObject({ episode: 1 });
    const health = await getSupplierHealth(platform.deps, supplierId);
    expect(health).toMatchObject({ state: 'open', episode: 1, calls: 25, failures: 17, failure_percent: 68 });
    expect(health.latency_p95_ms).not.toBeNull();
    expect(health.last_error_code).toBe('upstream_unavailable');
  });

  it('refuses calls while open, then gives the single half-open probe to one of many concurrent callers', async () => {
    const closedNow = await supplierAvailability(platform.deps, supplierId);
    expect(closedNow).toMatchObject({ state: 'open', mayCall: false, probe: false });
    expect(closedNow.retryAt!.getTime()).toBeGreaterThan(Date.now());
    await openTimePassed();
    const answers = await Promise.all(Array.from({ length: 24 }, () => supplierAvailability(platform.deps, supplierId)));
    expect(answers.filter((a) => a.probe)).toHaveLength(1);
    expect(answers.filter((a) => a.mayCall)).toHaveLength(1);
    expect(answers.filter((a) => !a.probe).every((a) => a.state === 'half_open' && !a.mayCall)).toBe(true);
    expect(await breaker()).toMatchObject({ state: 'half_open' });
  });

  it('a failed probe opens the breaker again without a second alert', async () => {
    sandbox.control.failNext(1, 'maintenance');
    expect(await credit()).toBe('transient:upstream_maintenance');
    expect(await breaker()).toMatchObject({ state: 'open', episode: 1 });
    expect(await alerts('supplier_down')).toHaveLength(1);
    expect((await supplierAvailability(platform.deps, supplierId)).mayCall).toBe(false);
  });

  it('a successful probe closes it and raises the one "back" alert; a new window starts', async () => {
    await openTimePassed();
    const claims = await Promise.all(Array.from({ length: 8 }, () => supplierAvailability(platform.deps, supplierId)));
    expect(claims.filter((a) => a.probe)).toHaveLength(1);
    sandbox.control.clearFaults();
    expect(await credit()).toBe('ok');
    expect(await breaker()).toMatchObject({ state: 'closed', episode: 1 });
    expect((await alerts('supplier_up')).map((a) => a.alert_key)).toEqual([`supplier-up:${supplierId}:1`]);
    expect(await supplierAvailability(platform.deps, supplierId)).toMatchObject({ state: 'closed', mayCall: true, probe: false });
    // The failures before the closing no longer count: one more failure does not open it.
    sandbox.control.failNext(1, 'html500');
    await credit();
    expect(await breaker()).toMatchObject({ state: 'closed' });
    // More successes change nothing and raise nothing.
    await Promise.all(Array.from({ length: 4 }, () => credit()));
    expect(await alerts('supplier_up')).toHaveLength(1);
  });

  it('a second outage is a new episode with its own pair of alerts', async () => {
    sandbox.control.failNext(12, 'html500');
    await Promise.all(Array.from({ length: 12 }, () => credit()));
    expect(await breaker()).toMatchObject({ state: 'open', episode: 2 });
    expect((await alerts('supplier_down')).map((a) => a.alert_key)).toEqual([`supplier-down:${supplierId}:1`, `supplier-down:${supplierId}:2`]);
    sandbox.control.clearFaults();
    // Past the open time, a call made without asking (a renewal's host read) is the probe too.
    await openTimePassed();
    expect(await credit()).toBe('ok');
    expect(await breaker()).toMatchObject({ state: 'closed', episode: 2 });
    expect((await alerts('supplier_up')).map((a) => a.alert_key)).toEqual([`supplier-up:${supplierId}:1`, `supplier-up:${supplierId}:2`]);
  });

  it('the funds check does not read the balance of a supplier that is down, and its read past the open time is the probe', async () => {
    sandbox.control.failNext(12, 'html500');
    await Promise.all(Array.from({ length: 12 }, () => credit()));
    expect(await breaker()).toMatchObject({ state: 'open', episode: 3 });
    sandbox.control.clearFaults();
    const count = async () => (await sqlOne<{ n: number }>(platform.deps, 'SELECT count(*)::int AS n FROM supplier_calls WHERE supplier_id = $1', [supplierId]))?.n;
    const before = await count();
    const input = { supplierId, amount: '1.00', refused: false, workflowId: 'health-funds' };
    // As when the read fails: nothing to compare, the payment goes as before.
    expect(await checkUpstreamFunds(platform.deps, input)).toEqual({ enough: true, balance: null, amount: '1.00' });
    expect(await count()).toBe(before);
    await openTimePassed();
    const probed = await checkUpstreamFunds(platform.deps, input);
    expect(probed.balance).not.toBeNull();
    expect(await count()).toBe((before ?? 0) + 1);
    expect(await breaker()).toMatchObject({ state: 'closed', episode: 3 });
  });
});

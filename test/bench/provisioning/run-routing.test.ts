import { describe, expect, it } from 'vitest';
import { checkOutcomes, formatRoutingTable, type LoadSide, type RoutingBenchResult, type ServiceOutcome, type SingleSide } from '../../../bench/provisioning/run-routing.js';
import { readBenchSettings } from '../../../bench/lib/settings.js';

/**
 * The checks of the provisioning-across-suppliers bench (issue #38, bench/provisioning/run-routing.ts):
 * a run whose services are not each bought exactly once where they are bound, with one attempt
 * row per refusal, says its figures are invalid (and fails `npm run bench`).
 */
const A = 11;
const B = 12;

const atA = (token: string): ServiceOutcome => ({ invoice_id: 1, status: 'active', token, supplier_id: A, bound_supplier_id: A, attempts: [] });
const atB = (token: string): ServiceOutcome => ({ invoice_id: 2, status: 'active', token, supplier_id: B, bound_supplier_id: B, attempts: [{ supplier_id: A, code: 'out_of_stock' }] });
const expectation = { name: 'failover', count: 4, refused: 2, suppliers: [A, B] };

describe('the exactly-once check of a failover side', () => {
  it('passes half bought at the first supplier and half failed over to the second, one attempt row each', () => {
    const result = checkOutcomes([atA('t1'), atA('t2'), atB('t3'), atB('t4')], [{ t1: 1, t2: 1, other: 3 }, { t3: 1, t4: 1 }], expectation);
    expect(result).toEqual({ boughtAt: [2, 2], notOnce: 0, attempts: 2, problems: [] });
  });

  it('finds a reference bought at both suppliers, a service not active and a missing attempt row', () => {
    const stuck = { ...atA('t2'), status: 'awaiting_admin' };
    const noAttempt = { ...atB('t4'), attempts: [] };
    const result = checkOutcomes([atA('t1'), stuck, atB('t3'), noAttempt], [{ t1: 1, t3: 1 }, { t3: 1, t4: 1 }], expectation);
    expect(result.notOnce).toBe(2);
    expect(result.problems).toEqual([
      'failover: 3 of 4 services active',
      'failover: 2 services not bought exactly once across the sandboxes',
      'failover: 1 services with other attempt rows than their failover',
      'failover: bought 1 / 1 at A / B, expected 2 / 2',
      'failover: 1 attempt rows, expected 2',
    ]);
  });

  it('finds a service bound to another supplier than the one that sold it', () => {
    const result = checkOutcomes([{ ...atA('t1'), bound_supplier_id: B }], [{ t1: 1 }, {}], { ...expectation, count: 1, refused: 0 });
    expect(result.problems).toEqual(['failover: 1 services bound to another supplier than the one that sold them']);
  });
});

describe('the table of the provisioning across suppliers', () => {
  const single = (bindings: number): SingleSide => ({ bindings, samples: 2, active: 2, medianMs: 500, p95Ms: 600, upstreamMedianMs: 400, calls: { A: { '/login': 1 } } });
  const load = (refused: number): LoadSide => ({
    count: 4,
    refused,
    wallSeconds: 2,
    perSecond: 2,
    medianMs: 900,
    p95Ms: 1200,
    active: 4,
    failed: 0,
    boughtAt: [4 - refused, refused],
    notOnce: 0,
    attempts: refused,
    failedOver: { count: refused, medianMs: 1100 },
    calls: { A: { '/login': 4 }, B: {} },
  });
  const result: RoutingBenchResult = {
    latencyMs: 50,
    single: { one: single(1), three: single(3), addedMedianMs: 0 },
    load: { baseline: load(0), failover: load(2), throughputRatio: 1 },
    problems: [],
    check: { label: 'clean', pass: true },
    rss: { peakMb: {}, targets: {} },
  };

  it('prints both pairs and their check', () => {
    const text = formatRoutingTable(result);
    expect(text).toContain('three bindings (A, B, C):');
    expect(text).toContain('A refuses 2   carts (→ B)');
    expect(text).toContain('检查 / check: clean → PASS');
    expect(text).not.toContain('NOT valid');
  });

  it('says its figures are invalid when a check failed, naming why', () => {
    const text = formatRoutingTable({ ...result, problems: ['failover: 3 of 4 services active'], check: { label: 'clean', pass: false } });
    expect(text).toContain('CHECKS FAILED: these figures are NOT valid');
    expect(text).toContain('    - failover: 3 of 4 services active');
    expect(text).toContain('FAIL (fails the run; the figures above are not valid)');
  });

  it('takes its sample count from BENCH_ROUTING_SAMPLES (10 unless set)', () => {
    expect(readBenchSettings({}).routingSamples).toBe(10);
    expect(readBenchSettings({ BENCH_ROUTING_SAMPLES: '4' }).routingSamples).toBe(4);
  });
});

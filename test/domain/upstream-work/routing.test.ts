import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne, sqlRows } from '../../../db/sql.js';
import { saveSettings } from '../../../domain/settings/settings.js';
import { routeProvisioning } from '../../../domain/upstream-work/routing.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import type { UpstreamSandbox } from '../../helpers/upstream-supplier.js';
import { twoSupplierProduct } from '../../helpers/two-suppliers.js';

/**
 * The routing decision against two real upstream sandboxes: a product imported from supplier A
 * (upstream product 101, 74.00 a month there) with a further binding on supplier B (its 101).
 */
let platform: TestPlatform;
let sandboxA: UpstreamSandbox;
let sandboxB: UpstreamSandbox;
let supplierA: number;
let supplierB: number;
let productId: number;

/** Our price of the default configuration (the import's 20 % on the upstream's 74.00). */
const PRICE = '88.80';

beforeAll(async () => {
  platform = await startTestPlatform();
  ({ sandboxA, sandboxB, supplierA, supplierB, productId } = await twoSupplierProduct(platform, ['alpha', 'beta']));
});
afterEach(async () => {
  for (const sandbox of [sandboxA, sandboxB]) {
    sandbox.control.setCredit('10000.00');
    sandbox.control.setStock(101, null);
    sandbox.control.resetPrices();
  }
  await sqlRows(platform.deps, 'DELETE FROM supplier_breakers', []);
  await saveSettings(platform.deps, null, { 'economics.hold_below_cost': false });
  await platform.deps.db.models.Product.update({ upstream_routing: 'priority' }, { where: { id: productId } });
});
afterAll(async () => {
  await sandboxA?.stop();
  await sandboxB?.stop();
  await platform?.close();
});

const route = () => routeProvisioning(platform.deps, { productId, billingPeriod: 'monthly', price: PRICE, config: null });

describe('routing a provisioning among the product’s bindings', () => {
  it('by priority: the first binding that can sell, the later ones not even asked', async () => {
    const decision = await route();
    expect(decision.policy).toBe('priority');
    expect(decision.chosen).toMatchObject({ bindingId: null, supplierId: supplierA, cost: '74.00', eligible: true, balance: '10000.00' });
    expect(decision.candidates.map((c) => [c.supplierId, c.eligible])).toEqual([
      [supplierA, true],
      [supplierB, null],
    ]);
    expect(decision.summary).toBe('按优先级由供应商「供应商 alpha」开通');
  });

  it('by lowest cost: the cheaper supplier, ties by priority', async () => {
    await platform.deps.db.models.Product.update({ upstream_routing: 'lowest_cost' }, { where: { id: productId } });
    expect((await route()).chosen?.supplierId).toBe(supplierA); // the same cost: priority decides
    sandboxB.control.setPrices(101, { cycles: { monthly: '40.00' } });
    const decision = await route();
    expect(decision.chosen).toMatchObject({ supplierId: supplierB, cost: '55.00' }); // 40.00 base + the default options' 15.00
    expect(decision.candidates.map((c) => c.supplierId)).toEqual([supplierB, supplierA]);
    expect(decision.summary).toBe('按成本最低（55.00 元）由供应商「供应商 beta」开通');
  });

  it('skips a supplier whose balance does not cover the bill, and says so', async () => {
    sandboxA.control.setCredit('10.00');
    const decision = await route();
    expect(decision.chosen?.supplierId).toBe(supplierB);
    expect(decision.candidates[0]).toMatchObject({ eligible: false, balance: '10.00', reason: '余额不足（余额 10.00 元，需 74.00 元）' });
    expect(decision.summary).toBe('供应商「供应商 alpha」余额不足（余额 10.00 元，需 74.00 元），改由供应商「供应商 beta」开通');
  });

  it('skips a supplier out of stock', async () => {
    sandboxA.control.setStock(101, 0);
    const decision = await route();
    expect(decision.chosen?.supplierId).toBe(supplierB);
    expect(decision.candidates[0]).toMatchObject({ eligible: false, reason: '上游缺货' });
  });

  it('skips a supplier whose breaker is open without claiming its probe, and probes it only when nothing else can sell', async () => {
    await sqlRows(platform.deps, `INSERT INTO supplier_breakers (supplier_id, state, episode, opened_at) VALUES ($1, 'open', 1, now() - interval '1 hour')`, [supplierA]);
    const decision = await route();
    expect(decision.chosen?.supplierId).toBe(supplierB);
    expect(decision.candidates[0]).toMatchObject({ eligible: false, probe: false, reason: expect.stringContaining('熔断中') });
    // Past its open time, yet the closed supplier took the work: the probe is still there to claim.
    expect(await sqlOne(platform.deps, 'SELECT state, probe_claimed_at FROM supplier_breakers WHERE supplier_id = $1', [supplierA])).toEqual({ state: 'open', probe_claimed_at: null });

    sandboxB.control.setStock(101, 0);
    const probed = await route();
    expect(probed.chosen).toMatchObject({ supplierId: supplierA, probe: true });
    expect(probed.summary).toBe('供应商「供应商 beta」上游缺货，改由供应商「供应商 alpha」开通');
  });

  it('leaves out a cost above our price while the hold is on, and names every supplier when none can sell', async () => {
    await saveSettings(platform.deps, null, { 'economics.hold_below_cost': true });
    const decision = await routeProvisioning(platform.deps, { productId, billingPeriod: 'monthly', price: '50.00', config: null });
    expect(decision.chosen).toBeNull();
    expect(decision.candidates.map((c) => c.reason)).toEqual([
      '上游成本 74.00 元高于售价 50.00 元（已开启低于成本暂停销售）',
      '上游成本 74.00 元高于售价 50.00 元（已开启低于成本暂停销售）',
    ]);
    expect(decision.summary).toBe(
      '所有上游绑定均无法开通：供应商「供应商 alpha」上游成本 74.00 元高于售价 50.00 元（已开启低于成本暂停销售）；供应商「供应商 beta」上游成本 74.00 元高于售价 50.00 元（已开启低于成本暂停销售）',
    );
    // The hold off: the same cost sells.
    await saveSettings(platform.deps, null, { 'economics.hold_below_cost': false });
    expect((await routeProvisioning(platform.deps, { productId, billingPeriod: 'monthly', price: '50.00', config: null })).chosen?.supplierId).toBe(supplierA);
  });

  it('names each supplier when all are short or out of stock', async () => {
    sandboxA.control.setCredit('1.00');
    sandboxB.control.setStock(101, 0);
    const decision = await route();
    expect(decision.chosen).toBeNull();
    expect(decision.summary).toBe('所有上游绑定均无法开通：供应商「供应商 alpha」余额不足（余额 1.00 元，需 74.00 元）；供应商「供应商 beta」上游缺货');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne, sqlRows } from '../../../db/sql.js';
import { removeProductAlternate } from '../../../domain/catalogue/product-alternates.js';
import { checkPriceDrift } from '../../../domain/economics/price-drift.js';
import { listPriceFindings, summarisePriceFindings, type PriceFinding } from '../../../domain/economics/findings.js';
import { repriceProduct } from '../../../domain/economics/reprice.js';
import { saveSettings } from '../../../domain/settings/settings.js';
import { SYSTEM_ACTOR } from '../../../lib/actor.js';
import { expectError } from '../../helpers/http.js';
import { createUser, daysFromNow, seedService } from '../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import type { UpstreamSandbox } from '../../helpers/upstream-supplier.js';
import { twoSupplierProduct } from '../../helpers/two-suppliers.js';

/**
 * Price drift per binding (issue #38), against two real upstream sandboxes: a product imported
 * from supplier A (upstream product 101: 74.00 a month for the default configuration, ours 88.80
 * with the import's 20 %) and bound further to supplier B's 101. Each binding's points and
 * findings are its own (no collision at the same point and version), each finding names its
 * supplier, a service's renewal is compared with the supplier holding it, and the hold stops
 * sales only when no binding sells a point at or above cost.
 */
let platform: TestPlatform;
let sandboxA: UpstreamSandbox;
let sandboxB: UpstreamSandbox;
let supplierA: number;
let supplierB: number;
let productId: number;
let alternateId: number;
let serviceAtB: number;

const HELD = '该商品上游成本已高于售价，暂停销售，请等待管理员调整价格';

async function findings(query: { state?: 'open' | 'acknowledged' | 'resolved'; kind?: 'price' | 'renewal'; supplier_id?: number } = {}): Promise<PriceFinding[]> {
  return (await listPriceFindings(platform.deps, { product_id: productId, page: 1, page_size: 200, ...query })).rows;
}

const run = () => checkPriceDrift(platform.deps, { productIds: [productId] });
const quote = () => platform.api.post(`/api/v2/site/products/${productId}/quote`, { body: { billing_period: 'monthly' } });
const baseMonthly = (list: PriceFinding[], supplierId: number) => list.find((f) => f.supplier_id === supplierId && f.kind === 'price' && f.billing_period === 'monthly' && f.option_key.startsWith('base'));

beforeAll(async () => {
  platform = await startTestPlatform();
  ({ sandboxA, sandboxB, supplierA, supplierB, productId, alternateId } = await twoSupplierProduct(platform, ['drift-a', 'drift-b']));
  // A service bought through B (its binding names B's 101), renewing at our 88.80.
  const userId = (await createUser(platform)).id;
  serviceAtB = await seedService(platform, { userId, nextDueAt: daysFromNow(10), price: '88.80', upstream: { supplierId: supplierB, hostId: 1 } });
  await sqlRows(platform.deps, `UPDATE services SET product_id = $2, config = '{}'::jsonb WHERE id = $1 RETURNING id`, [serviceAtB, productId]);
  await sqlRows(platform.deps, `UPDATE service_upstream_bindings SET product_id = $2 WHERE service_id = $1 RETURNING service_id`, [serviceAtB, productId]);
  await saveSettings(platform.deps, null, { 'economics.hold_below_cost': true });
});
afterAll(async () => {
  await sandboxA?.stop();
  await sandboxB?.stop();
  await platform?.close();
});

describe('price drift on each binding of a product', () => {
  it('reads every binding and keeps each one’s points apart', async () => {
    const summary = await run();
    expect(summary).toMatchObject({ products: 1, bindings: 2, new_findings: 0, failed: [] });
    const keys = await sqlRows<{ option_key: string }>(platform.deps, `SELECT option_key FROM upstream_price_observations WHERE product_id = $1 AND billing_period = 'monthly'`, [productId]);
    const first = keys.filter((k) => !k.option_key.includes('@') && !k.option_key.startsWith('service:')).map((k) => k.option_key).sort();
    const further = keys.filter((k) => k.option_key.endsWith(`@${alternateId}`)).map((k) => k.option_key.replace(`@${alternateId}`, '')).sort();
    expect(first).toContain('base');
    expect(further).toEqual(first);
    // The service renews with B: its one point, unsuffixed.
    expect(keys.filter((k) => k.option_key === `service:${serviceAtB}`)).toHaveLength(1);
  });

  it('a rise at B alone is B’s findings, naming B; the product still sells (A sells at a margin)', async () => {
    sandboxB.control.setPrices(101, { cycles: { monthly: '80.00' } }); // B's default: 80.00 + 15.00 = 95.00 > 88.80
    expect((await quote()).body.code).toBe(0);
    const summary = await run();
    expect(summary.new_findings).toBeGreaterThan(0);
    const open = await findings({ state: 'open' });
    expect(open.every((f) => f.supplier_id === supplierB && f.supplier_name === '供应商 drift-b' && f.binding_id === alternateId)).toBe(true);
    expect(baseMonthly(open, supplierB)).toMatchObject({ option_key: `base@${alternateId}`, new_upstream_price: '95.00', our_price: '88.80', below_cost: true, held: false });
    // The renewal of the service at B, against B's price.
    expect(open.find((f) => f.kind === 'renewal')).toMatchObject({ service_id: serviceAtB, option_key: `service:${serviceAtB}`, new_upstream_price: '95.00', supplier_id: supplierB });
    expect(await findings({ supplier_id: supplierA })).toEqual([]);
    const alert = await sqlOne<{ title: string; subject: Record<string, unknown> }>(
      platform.deps,
      `SELECT title, subject FROM admin_alerts WHERE kind = 'price_drift' AND (subject->>'binding_id')::int = $1 ORDER BY id LIMIT 1`,
      [alternateId],
    );
    expect(alert?.title).toMatch(/（供应商「供应商 drift-b」）$/);
    expect(alert?.subject).toMatchObject({ supplier_id: supplierB, product_id: productId });
    // Not held: A still sells every point at a margin.
    expect((await quote()).body.code).toBe(0);
    expect(await summarisePriceFindings(platform.deps, { product_id: productId })).toMatchObject({ products_held: 0, hold_below_cost: true });
  });

  it('the same rise at A is A’s own findings at the same point and version, and now the product is held', async () => {
    sandboxA.control.setPrices(101, { cycles: { monthly: '80.00' } });
    await run();
    const open = await findings({ state: 'open' });
    const atA = baseMonthly(open, supplierA);
    const atB = baseMonthly(open, supplierB);
    expect(atA).toMatchObject({ option_key: 'base', binding_id: null, supplier_name: '供应商 drift-a', new_upstream_price: '95.00', below_cost: true, held: true });
    expect(atB).toMatchObject({ option_key: `base@${alternateId}`, held: true });
    const versions = await sqlRows<{ observation_version: number }>(platform.deps, 'SELECT observation_version FROM upstream_price_findings WHERE id = ANY($1::bigint[])', [[atA!.id, atB!.id]]);
    expect(versions.map((v) => v.observation_version)).toEqual([2, 2]);
    // The service at B is compared with B only: no renewal finding at A.
    expect(open.filter((f) => f.kind === 'renewal').map((f) => f.supplier_id)).toEqual([supplierB]);
    const held = await quote();
    expectError(held, 40904, 409);
    expect(held.body.message).toBe(HELD);
    expect(await summarisePriceFindings(platform.deps, { product_id: productId })).toMatchObject({ products_held: 1 });
    // Run again: nothing new on either binding.
    expect((await run()).new_findings).toBe(0);
  });

  it('B falling back lifts the hold at once, though A’s finding stays open', async () => {
    sandboxB.control.resetPrices();
    const summary = await run();
    expect(summary.resolved).toBeGreaterThan(0);
    expect(await findings({ state: 'open', supplier_id: supplierB })).toEqual([]);
    expect(baseMonthly(await findings({ state: 'open' }), supplierA)).toMatchObject({ below_cost: true, held: false });
    expect((await quote()).body.code).toBe(0);
  });

  it('a binding that cannot be read is named; the other binding of the product is still checked', async () => {
    sandboxB.control.failNext(20, 'html500', { path: '/cart/get_product_config' });
    const summary = await run();
    sandboxB.control.clearFaults();
    await sqlRows(platform.deps, 'DELETE FROM supplier_breakers', []);
    expect(summary).toMatchObject({ products: 1, bindings: 1 });
    expect(summary.failed).toEqual([expect.objectContaining({ product_id: productId, binding_id: alternateId, supplier_id: supplierB, reason: expect.stringMatching(/\p{Script=Han}/u) })]);
  });

  it('re-pricing records the further binding’s points against our new prices too', async () => {
    await repriceProduct(platform.deps, productId, SYSTEM_ACTOR);
    const ours = await sqlOne<{ first: string; further: string }>(
      platform.deps,
      `SELECT max(our_price) FILTER (WHERE option_key = 'base')::text AS first, max(our_price) FILTER (WHERE option_key = $2)::text AS further
         FROM upstream_price_observations WHERE product_id = $1 AND billing_period = 'monthly'`,
      [productId, `base@${alternateId}`],
    );
    // A's 95.00 with 20 %: 114.00 (96.00 base + 18.00), seen on both bindings.
    expect(ours).toEqual({ first: '114.00', further: '114.00' });
    expect(await findings({ state: 'open', kind: 'price' })).toEqual([]);
  });

  it('a further binding removed takes its open findings with it on the next check', async () => {
    sandboxB.control.setPrices(101, { cycles: { monthly: '200.00' } });
    await run();
    expect((await findings({ state: 'open', supplier_id: supplierB })).length).toBeGreaterThan(0);
    await removeProductAlternate(platform.deps, productId, alternateId, SYSTEM_ACTOR);
    const summary = await run();
    expect(summary).toMatchObject({ bindings: 1 });
    expect(await findings({ state: 'open', supplier_id: supplierB })).toEqual([]);
  });
});

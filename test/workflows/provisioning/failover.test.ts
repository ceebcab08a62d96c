import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne, sqlRows } from '../../../db/sql.js';
import { addProductAlternate } from '../../../domain/catalogue/product-alternates.js';
import { saveSettings } from '../../../domain/settings/settings.js';
import { SYSTEM_ACTOR } from '../../../lib/actor.js';
import { SANDBOX_CREDENTIALS } from '../../../sandbox/launcher.js';
import { startUpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/server.js';
import { createTestSupplier } from '../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { buyWithBalance, PROVISION_TEST_ENV, serviceReaches, setUpUpstreamProduct, type UpstreamCatalogue } from '../../helpers/provisioning.js';
import type { UpstreamSandbox } from '../../helpers/upstream-supplier.js';
import { eventually } from '../../helpers/wait.js';
import { recordHistory } from '../../helpers/histories.js';
import { PROVISION_WORKFLOW_TYPE, provisionWorkflowId } from '../../../workflows/provisioning/contract.js';
import { startWorkerProcess, type WorkerProcess } from '../../helpers/worker-process.js';

/**
 * Issue #38: a product sold from two upstream sandboxes, each case bought through the real flow
 * (a client pays from its balance, `provision:<id>` runs in a worker process): routing by priority
 * and by cost, failover on out of stock, on a product withdrawn, on a supplier down; a checkout
 * whose answer was lost is settled at its supplier, never bought elsewhere; both failing park for
 * an admin naming both; a worker killed during the failover still ends with one live host.
 */
let platform: TestPlatform;
let a: UpstreamCatalogue;
let sandboxB: UpstreamSandbox;
let supplierB: number;
let worker: WorkerProcess;
let token: string;

const env = { ...PROVISION_TEST_ENV, PROVISION_ACTIVITY_TIMEOUT_SECONDS: '5' };

beforeAll(async () => {
  platform = await startTestPlatform({ env });
  platform.deps.config.publicBaseUrl = platform.baseUrl;
  a = await setUpUpstreamProduct(platform);
  sandboxB = await startUpstreamFinanceSandbox({ accounts: [SANDBOX_CREDENTIALS.upstream] });
  supplierB = (await createTestSupplier(platform, sandboxB.baseUrl, 'beta')).id;
  await addProductAlternate(platform.deps, a.productId, { supplier_id: supplierB, upstream_product_id: '101' }, SYSTEM_ACTOR);
  token = await platform.rootToken();
  // A funds wait fails over after one minute (read by the worker process, set before it starts).
  await saveSettings(platform.deps, null, { 'economics.funds_failover_minutes': 1 });
  worker = startWorkerProcess(platform, env);
  await worker.ready;
});
afterEach(async () => {
  for (const sandbox of [a.sandbox, sandboxB]) {
    sandbox.control.clearFaults();
    sandbox.control.setLatency(0);
    sandbox.control.setCredit('10000.00');
    sandbox.control.setStock(101, null);
    sandbox.control.resetPrices();
  }
  await sqlRows(platform.deps, 'DELETE FROM supplier_breakers', []);
  await sqlRows(platform.deps, 'DELETE FROM supplier_calls', []);
  await platform.deps.db.models.Product.update({ upstream_routing: 'priority' }, { where: { id: a.productId } });
});
afterAll(async () => {
  await worker?.stop();
  await sandboxB?.stop();
  await a?.sandbox.stop();
  await platform?.close();
});

/** What each sandbox bought for the service's downstream reference (0: nothing). */
function purchasesOf(token: string | null): [number, number] {
  return [a.sandbox.control.ledger().purchases[token ?? ''] ?? 0, sandboxB.control.ledger().purchases[token ?? ''] ?? 0];
}

async function finished(serviceId: number) {
  const service = await serviceReaches(platform, serviceId, ['active', 'failed']);
  const binding = await sqlOne<{ supplier_id: number; upstream_host_id: string | null }>(
    platform.deps,
    'SELECT supplier_id, upstream_host_id::text AS upstream_host_id FROM service_upstream_bindings WHERE service_id = $1',
    [serviceId],
  );
  return { service, binding };
}

async function awaitingAdmin(serviceId: number) {
  return eventually(async () => {
    const res = await platform.api.get(`/api/v2/admin/provisioning/${serviceId}`, { token });
    return res.body.data.stage === 'awaiting_admin' ? res.body.data : null;
  }, 1200);
}

const steps = async (serviceId: number) =>
  (await platform.api.get(`/api/v2/admin/provisioning/${serviceId}`, { token })).body.data.steps as Array<{ stage: string; status: string; message: string }>;

const attempts = (serviceId: number) =>
  sqlRows<{ supplier_id: number; code: string; upstream_invoice_id: string | null }>(
    platform.deps,
    'SELECT supplier_id, code, upstream_invoice_id::text AS upstream_invoice_id FROM service_upstream_attempts WHERE service_id = $1 ORDER BY id',
    [serviceId],
  );

describe('routing a paid purchase among two suppliers', () => {
  it('by priority: the first binding buys; the second supplier is not called to buy', async () => {
    const { serviceId } = await buyWithBalance(platform, a.productId);
    const { service, binding } = await finished(serviceId);
    expect(service.status).toBe('active');
    expect(service.supplier_id).toBe(a.supplierId);
    expect(binding?.supplier_id).toBe(a.supplierId);
    expect(purchasesOf(service.downstream_token)).toEqual([1, 0]);
    expect(await steps(serviceId)).toContainEqual(expect.objectContaining({ stage: 'prepare', status: 'succeeded', message: '已准备开通信息：按优先级由供应商「沙箱供应商」开通' }));
  });

  it('by lowest cost: the cheaper supplier buys, and the service names it', async () => {
    await platform.deps.db.models.Product.update({ upstream_routing: 'lowest_cost' }, { where: { id: a.productId } });
    sandboxB.control.setPrices(101, { cycles: { monthly: '40.00' } });
    const { serviceId } = await buyWithBalance(platform, a.productId);
    const { service, binding } = await finished(serviceId);
    expect(service.status).toBe('active');
    expect([service.supplier_id, binding?.supplier_id]).toEqual([supplierB, supplierB]);
    expect(purchasesOf(service.downstream_token)).toEqual([0, 1]);
    expect((await steps(serviceId)).find((s) => s.stage === 'prepare' && s.status === 'succeeded')?.message).toMatch(/^已准备开通信息：按成本最低（\d+\.\d{2} 元）由供应商「供应商 beta」开通$/);
  });
});

describe('failing over to the next binding, once', () => {
  it('on out of stock at the first supplier’s cart: bought at the second, the first left without an order', async () => {
    a.sandbox.control.failNext(1, 'out_of_stock', { path: '/cart/add_to_shop' });
    const { serviceId } = await buyWithBalance(platform, a.productId);
    const { service, binding } = await finished(serviceId);
    expect(service.status).toBe('active');
    expect([service.supplier_id, binding?.supplier_id]).toEqual([supplierB, supplierB]);
    expect(purchasesOf(service.downstream_token)).toEqual([0, 1]);
    expect(await attempts(serviceId)).toEqual([{ supplier_id: a.supplierId, code: 'out_of_stock', upstream_invoice_id: null }]);
    const detail = (await platform.api.get(`/api/v2/admin/provisioning/${serviceId}`, { token })).body.data;
    expect(detail).toMatchObject({ supplier_id: supplierB, upstream_attempts: [{ supplier_id: a.supplierId, code: 'out_of_stock', reason: '上游商品库存不足', upstream_invoice_id: null }] });
    const handle = platform.temporal.workflow.getHandle(provisionWorkflowId(serviceId));
    expect(await handle.result()).toMatchObject({ serviceId, outcome: 'active' });
    await recordHistory(handle, PROVISION_WORKFLOW_TYPE, 'failover-out-of-stock');
    expect(await steps(serviceId)).toContainEqual(
      expect.objectContaining({ stage: 'failover', status: 'succeeded', message: '供应商「沙箱供应商」上游商品库存不足，改由供应商「供应商 beta」开通' }),
    );
  });

  it('on a product withdrawn at checkout: the first supplier is asked for the order first, then the second buys', async () => {
    a.sandbox.control.failNext(1, 'product_gone', { path: '/cart/settle' });
    const { serviceId } = await buyWithBalance(platform, a.productId);
    const { service } = await finished(serviceId);
    expect(service.status).toBe('active');
    expect(service.supplier_id).toBe(supplierB);
    expect(purchasesOf(service.downstream_token)).toEqual([0, 1]);
    expect((await attempts(serviceId)).map((t) => [t.supplier_id, t.code])).toEqual([[a.supplierId, 'product_gone']]);
  });

  it('on a supplier down (its breaker open while the purchase fails): bought at the second', async () => {
    a.sandbox.control.resetCounters();
    a.sandbox.control.failNext(100, 'html500', { path: '/cart/add_to_shop' });
    const { serviceId } = await buyWithBalance(platform, a.productId);
    // Routed to the first while it was up; it goes down during the purchase.
    await eventually(async () => ((a.sandbox.control.counters().paths['/cart/add_to_shop'] ?? 0) > 0 ? true : null), 600);
    await sqlRows(
      platform.deps,
      `INSERT INTO supplier_breakers (supplier_id, state, episode, opened_at) VALUES ($1, 'open', 1, now())
       ON CONFLICT (supplier_id) DO UPDATE SET state = 'open', opened_at = now() RETURNING supplier_id`,
      [a.supplierId],
    );
    const { service } = await finished(serviceId);
    expect(service.status).toBe('active');
    expect(service.supplier_id).toBe(supplierB);
    expect(purchasesOf(service.downstream_token)).toEqual([0, 1]);
    const [left] = await attempts(serviceId);
    expect(left).toMatchObject({ supplier_id: a.supplierId, upstream_invoice_id: null });
    expect((await steps(serviceId)).find((s) => s.stage === 'failover')?.message).toMatch(/^供应商「沙箱供应商」供应商熔断中（.+），改由供应商「供应商 beta」开通$/);
  });

  it('a checkout whose answer was lost is settled at its supplier, never bought at the other, also when that supplier then goes down', async () => {
    // The order is created at the first supplier, its answer lost, and the supplier answers nothing more (breaker open).
    a.sandbox.control.resetCounters();
    a.sandbox.control.failNext(1, 'html500', { path: '/cart/settle', afterCommit: true });
    const { serviceId } = await buyWithBalance(platform, a.productId);
    // Once the checkout was sent, the supplier answers nothing more and its breaker is open.
    await eventually(async () => ((a.sandbox.control.counters().paths['/cart/settle'] ?? 0) > 0 ? true : null), 600);
    a.sandbox.control.failNext(1000, 'html500', { path: '/cart/clear' });
    await sqlRows(
      platform.deps,
      `INSERT INTO supplier_breakers (supplier_id, state, episode, opened_at) VALUES ($1, 'open', 1, now())
       ON CONFLICT (supplier_id) DO UPDATE SET state = 'open', opened_at = now() RETURNING supplier_id`,
      [a.supplierId],
    );
    {
      const waiting = await awaitingAdmin(serviceId);
      expect(waiting.failure_reason).toContain('须先在该供应商核实订单');
      const service = await platform.deps.db.models.Service.findByPk(serviceId);
      expect(purchasesOf(service?.downstream_token ?? null)).toEqual([1, 0]);
      expect(await attempts(serviceId)).toEqual([]);

      // The supplier answers again: an admin retry settles the order there, bought once.
      a.sandbox.control.clearFaults();
      await sqlRows(platform.deps, 'DELETE FROM supplier_breakers', []);
      expect((await platform.api.post(`/api/v2/admin/provisioning/${serviceId}/retry`, { token, body: { reason: '供应商已恢复' } })).body.code).toBe(0);
      const { service: done, binding } = await finished(serviceId);
      expect(done.status).toBe('active');
      expect(binding?.supplier_id).toBe(a.supplierId);
      expect(purchasesOf(done.downstream_token)).toEqual([1, 0]);
    }
  }, 240_000);

  it('on funds short at the first supplier past economics.funds_failover_minutes: its bill left unpaid and recorded, bought at the second', async () => {
    // Routed to the first with its balance read as enough; the balance is gone before the payment.
    a.sandbox.control.resetCounters();
    a.sandbox.control.setLatency(300);
    const { serviceId } = await buyWithBalance(platform, a.productId);
    await eventually(async () => ((a.sandbox.control.counters().paths['/cart/add_to_shop'] ?? 0) > 0 ? true : null), 600);
    a.sandbox.control.setCredit('0.00');
    const { service } = await finished(serviceId);
    expect(service.status).toBe('active');
    expect(service.supplier_id).toBe(supplierB);
    // An order was opened at the first (its bill unpaid, its host never running) and one bought at the second.
    expect(purchasesOf(service.downstream_token)).toEqual([1, 1]);
    const [left] = await attempts(serviceId);
    expect(left).toMatchObject({ supplier_id: a.supplierId, code: 'upstream_funds_timeout' });
    expect(left?.upstream_invoice_id).not.toBeNull();
    expect(a.sandbox.control.invoice(Number(left?.upstream_invoice_id))?.status).toBe('Unpaid');
    expect(a.sandbox.control.ledger().pays[String(left?.upstream_invoice_id)]).toBeUndefined();
    const stages = (await steps(serviceId)).map((s) => s.stage);
    expect(stages).toContain('awaiting_upstream_funds');
    expect((await steps(serviceId)).find((s) => s.stage === 'failover')?.message).toBe('供应商「沙箱供应商」供应商余额不足，等待充值已超过 1 分钟，改由供应商「供应商 beta」开通');
    await recordHistory(platform.temporal.workflow.getHandle(provisionWorkflowId(serviceId)), PROVISION_WORKFLOW_TYPE, 'failover-funds-timeout');
  }, 240_000);

  it('both suppliers failing leave the work awaiting an admin with a Chinese reason naming both', async () => {
    a.sandbox.control.failNext(1, 'out_of_stock', { path: '/cart/add_to_shop' });
    sandboxB.control.setStock(101, 0);
    const { serviceId } = await buyWithBalance(platform, a.productId);
    const waiting = await awaitingAdmin(serviceId);
    expect(waiting.failure_code).toBe('out_of_stock');
    expect(waiting.failure_reason).toContain('供应商「沙箱供应商」');
    expect(waiting.failure_reason).toContain('供应商「供应商 beta」上游缺货');
    const service = await platform.deps.db.models.Service.findByPk(serviceId);
    expect(service?.supplier_id).toBe(a.supplierId);
    expect(purchasesOf(service?.downstream_token ?? null)).toEqual([0, 0]);
    await platform.api.post(`/api/v2/admin/provisioning/${serviceId}/cancel`, { token, body: { reason: '均缺货' } });
  });

  it('a worker killed while the failover reads the second supplier still ends with exactly one live host', async () => {
    // Sold out at the first for good: the replacement worker replays the purchase there, refused again, and fails over.
    a.sandbox.control.failNext(1000, 'out_of_stock', { path: '/cart/add_to_shop' });
    sandboxB.control.resetCounters();
    sandboxB.control.setLatency(1500);
    const { serviceId } = await buyWithBalance(platform, a.productId);
    await eventually(async () => ((sandboxB.control.counters().paths['/cart/get_product_config'] ?? 0) > 0 ? true : null), 600);
    await worker.kill();
    worker = startWorkerProcess(platform, env);
    await worker.ready;
    const { service } = await finished(serviceId);
    expect(service.status).toBe('active');
    expect(service.supplier_id).toBe(supplierB);
    expect(purchasesOf(service.downstream_token)).toEqual([0, 1]);
    expect(await attempts(serviceId)).toHaveLength(1);
    const live = await sqlOne<{ n: number }>(platform.deps, 'SELECT count(*)::int AS n FROM service_upstream_bindings WHERE service_id = $1 AND upstream_host_id IS NOT NULL', [serviceId]);
    expect(live?.n).toBe(1);
  }, 240_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoCatalogue } from '../../../scripts/seeders/catalogue.js';
import { DEMO_BACKUP_SUPPLIER, DEMO_SUPPLIER_CODE, seedDemoBackupSupplier, seedDemoSupplier } from '../../../scripts/seeders/supplier.js';
import { SECOND_UPSTREAM } from '../../../sandbox/launcher.js';
import { startUpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/server.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { startUpstreamForPlatform, type UpstreamSandbox } from '../../helpers/upstream-supplier.js';

let platform: TestPlatform;
let sandbox: UpstreamSandbox;
/** The second upstream, as `npm run dev` starts it (`startSandboxes`). */
let sandbox2: UpstreamSandbox;

beforeAll(async () => {
  platform = await startTestPlatform();
  ({ sandbox } = await startUpstreamForPlatform(platform));
  sandbox2 = await startUpstreamFinanceSandbox(SECOND_UPSTREAM);
  await seedDemoCatalogue(platform.deps);
});
afterAll(async () => {
  await sandbox?.stop();
  await sandbox2?.stop();
  await platform?.close();
});

describe('demo supplier seeder', () => {
  it('creates the sandbox supplier and imports bound upstream products once', async () => {
    const first = await seedDemoSupplier(platform.deps, sandbox.baseUrl);
    expect(first).toContain(`supplier:${DEMO_SUPPLIER_CODE}`);
    expect(first.filter((c) => c.startsWith('product:'))).toHaveLength(3);
    const second = await seedDemoSupplier(platform.deps, `${sandbox.baseUrl}/`);
    expect(second).toEqual([]);
    const supplier = await platform.deps.db.models.Supplier.findOne({ where: { code: DEMO_SUPPLIER_CODE } });
    const bindings = await platform.deps.db.models.ProductUpstreamBinding.findAll({ where: { supplier_id: supplier?.id ?? 0 } });
    expect(bindings.map((b) => b.upstream_product_id).sort()).toEqual(['101', '102', '201']);
    const products = await platform.deps.db.models.Product.findAll({ where: { id: bindings.map((b) => b.product_id) } });
    expect(new Set(products.map((p) => p.product_type))).toEqual(new Set(['cloud_server', 'bare_metal']));
    expect(products.every((p) => p.status === 'active')).toBe(true);
  });

  it('adds the backup supplier on the second sandbox and binds the demo cloud server to both, once', async () => {
    const first = await seedDemoBackupSupplier(platform.deps, sandbox2.baseUrl);
    expect(first).toEqual([`supplier:${DEMO_BACKUP_SUPPLIER.code}`, expect.stringMatching(/^product-binding:\d+→backup\/101 \(lowest_cost\)$/)]);
    expect(await seedDemoBackupSupplier(platform.deps, `${sandbox2.baseUrl}/`)).toEqual([]);

    const token = await platform.rootToken();
    const backup = await platform.deps.db.models.Supplier.findOne({ where: { code: DEMO_BACKUP_SUPPLIER.code }, rejectOnEmpty: true });
    const suppliers = '/api/v2/admin/suppliers';
    expect((await platform.api.get(`${suppliers}/${backup.id}`, { token })).body.data).toMatchObject({ code: 'backup', name: '备用云（演示）', status: 'active' });
    // Reachable with its own account: the connection test logs in, the balance is the second sandbox's.
    expect((await platform.api.post(`${suppliers}/${backup.id}/connection-test`, { token })).body.data.success).toBe(true);
    expect((await platform.api.get(`${suppliers}/${backup.id}/balance`, { token })).body.data.balance).toBe(SECOND_UPSTREAM.credit);

    const primary = await platform.deps.db.models.Supplier.findOne({ where: { code: DEMO_SUPPLIER_CODE }, rejectOnEmpty: true });
    const own = await platform.deps.db.models.ProductUpstreamBinding.findOne({ where: { supplier_id: primary.id, upstream_product_id: '101' }, rejectOnEmpty: true });
    const bindings = await platform.api.get(`/api/v2/admin/products/${own.product_id}/upstream-bindings`, { token });
    expect(bindings.body.data.total).toBe(2);
    expect(bindings.body.data.list).toMatchObject([
      { priority: 0, first: true, supplier_code: DEMO_SUPPLIER_CODE, upstream_product_id: '101' },
      { priority: 1, first: false, supplier_id: backup.id, supplier_code: 'backup', supplier_name: '备用云（演示）', upstream_product_id: '101', price_rule_type: 'percent', price_rule_value: '20' },
    ]);
    const detail = await platform.api.get(`/api/v2/admin/products/${own.product_id}`, { token });
    expect(detail.body.data.upstream_binding.routing_policy).toBe('lowest_cost');

    // The second sandbox sells the same product for less, which is what lowest_cost picks.
    const monthly = async (supplierId: number) => {
      const list = await platform.api.get(`${suppliers}/${supplierId}/upstream-products`, { token, query: { page_size: 100 } });
      return Number(list.body.data.list.find((p: { id: number }) => p.id === 101).starting_price.amount);
    };
    expect(await monthly(backup.id)).toBeLessThan(await monthly(primary.id));
  });
});

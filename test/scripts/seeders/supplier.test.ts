import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoCatalogue } from '../../../scripts/seeders/catalogue.js';
import { DEMO_SUPPLIER_CODE, seedDemoSupplier } from '../../../scripts/seeders/supplier.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { startUpstreamForPlatform, type UpstreamSandbox } from '../../helpers/upstream-supplier.js';

let platform: TestPlatform;
let sandbox: UpstreamSandbox;

beforeAll(async () => {
  platform = await startTestPlatform();
  ({ sandbox } = await startUpstreamForPlatform(platform));
  await seedDemoCatalogue(platform.deps);
});
afterAll(async () => {
  await sandbox?.stop();
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
});

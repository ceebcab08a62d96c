import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoCatalogue } from '../../../scripts/seeders/catalogue.js';
import { seedDemoConsole } from '../../../scripts/seeders/console.js';
import { seedDemoData } from '../../../scripts/seeders/demo.js';
import { seedReconciliationDemo } from '../../../scripts/seeders/economics-reconciliation.js';
import { seedDemoSupplier } from '../../../scripts/seeders/supplier.js';
import { seedDemoUpgradableService } from '../../../scripts/seeders/upgrades.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { startUpstreamForPlatform, type UpstreamSandbox } from '../../helpers/upstream-supplier.js';

let platform: TestPlatform;
let sandbox: UpstreamSandbox;

beforeAll(async () => {
  platform = await startTestPlatform();
  ({ sandbox } = await startUpstreamForPlatform(platform));
  // As `npm run dev` does, in its order.
  await seedDemoData(platform.deps);
  await seedDemoCatalogue(platform.deps);
  await seedDemoSupplier(platform.deps, sandbox.baseUrl);
  await seedDemoUpgradableService(platform.deps);
  await seedDemoConsole(platform.deps);
});
afterAll(async () => {
  await sandbox?.stop();
  await platform?.close();
});

describe('demo reconciliation seeder', () => {
  it('leaves exactly one finding, an upstream host that is not ours, once', async () => {
    expect(await seedReconciliationDemo(platform.deps, sandbox)).toEqual(['reconciliation-findings:1']);
    expect(await seedReconciliationDemo(platform.deps, sandbox)).toEqual([]);
    const token = await platform.rootToken();
    const res = await platform.api.get('/api/v2/admin/economics/reconciliation/findings', { token });
    expect(res.body.data.total).toBe(1);
    expect(res.body.data.list[0]).toMatchObject({ kind: 'unknown_upstream_host', state: 'open', service_id: null });
  });
});

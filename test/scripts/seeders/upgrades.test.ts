import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listUpgradeOptions } from '../../../domain/services/upgrades/upgrade-options.js';
import { seedDemoCatalogue } from '../../../scripts/seeders/catalogue.js';
import { DEMO_CLIENT, seedDemoData } from '../../../scripts/seeders/demo.js';
import { seedDemoSupplier } from '../../../scripts/seeders/supplier.js';
import { seedDemoUpgradableService } from '../../../scripts/seeders/upgrades.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { startUpstreamForPlatform, type UpstreamSandbox } from '../../helpers/upstream-supplier.js';

let platform: TestPlatform;
let sandbox: UpstreamSandbox;

beforeAll(async () => {
  platform = await startTestPlatform();
  ({ sandbox } = await startUpstreamForPlatform(platform));
  await seedDemoData(platform.deps);
  await seedDemoCatalogue(platform.deps);
  await seedDemoSupplier(platform.deps, sandbox.baseUrl);
});
afterAll(async () => {
  await sandbox?.stop();
  await platform?.close();
});

describe('demo upgradable service seeder', () => {
  it('gives the demo client a running service with upgrade options, once', async () => {
    const first = await seedDemoUpgradableService(platform.deps);
    expect(first).toHaveLength(2);
    expect(await seedDemoUpgradableService(platform.deps)).toEqual([]);
    const user = await platform.deps.db.models.User.findOne({ where: { email: DEMO_CLIENT.email } });
    const service = await platform.deps.db.models.Service.findOne({ where: { user_id: user?.id ?? 0 } });
    const options = await listUpgradeOptions(platform.deps, { serviceId: service?.id ?? 0, userId: user?.id ?? 0 });
    expect(options.locked_price).toBe(service?.price);
    expect(options.options.map((o) => o.field)).toContain('cpu');
    expect(options.options.flatMap((o) => o.choices).some((c) => !c.current && c.new_price !== null)).toBe(true);
  });
});

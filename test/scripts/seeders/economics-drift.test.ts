import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlRows } from '../../../db/sql.js';
import { seedDemoCatalogue } from '../../../scripts/seeders/catalogue.js';
import { seedEconomicsDriftDemo } from '../../../scripts/seeders/economics-drift.js';
import { seedDemoSupplier } from '../../../scripts/seeders/supplier.js';
import type { RunningSandboxes } from '../../../sandbox/launcher.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { startUpstreamForPlatform, type UpstreamSandbox } from '../../helpers/upstream-supplier.js';

let platform: TestPlatform;
let sandbox: UpstreamSandbox;

beforeAll(async () => {
  platform = await startTestPlatform();
  ({ sandbox } = await startUpstreamForPlatform(platform));
  await seedDemoCatalogue(platform.deps);
  await seedDemoSupplier(platform.deps, sandbox.baseUrl);
});
afterAll(async () => {
  await sandbox?.stop();
  await platform?.close();
});

describe('economics drift demo seeder', () => {
  it('leaves exactly one product flagged for drift, with old and new upstream price, and adds nothing when run again', async () => {
    const sandboxes = { upstream: sandbox } as unknown as RunningSandboxes;
    const first = await seedEconomicsDriftDemo(platform.deps, sandboxes);
    expect(first).toHaveLength(1);
    const open = await sqlRows<{ product_id: number; old_upstream_price: string; new_upstream_price: string; margin_percent: string }>(
      platform.deps,
      `SELECT product_id, old_upstream_price, new_upstream_price, margin_percent FROM upstream_price_findings WHERE state = 'open' AND option_key = 'base'`,
      [],
    );
    expect(new Set(open.map((f) => f.product_id)).size).toBe(1);
    // 899.00 + one IP at 30.00 → 1000.00 + 30.00, against our 1078.80 + 36.00.
    expect(open[0]).toMatchObject({ old_upstream_price: '929.00', new_upstream_price: '1030.00', margin_percent: '7.61' });
    expect(await seedEconomicsDriftDemo(platform.deps, sandboxes)).toEqual([]);
  });
});

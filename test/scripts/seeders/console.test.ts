import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoCatalogue } from '../../../scripts/seeders/catalogue.js';
import { DEMO_CONSOLE_HOSTNAME, seedDemoConsole } from '../../../scripts/seeders/console.js';
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
  // As `npm run dev` does: the upgrades demo binds a host of the same product first.
  await seedDemoUpgradableService(platform.deps);
});
afterAll(async () => {
  await sandbox?.stop();
  await platform?.close();
});

describe('demo console seeder', () => {
  it('gives the demo client a running service with NAT rules and a linked security group, once', async () => {
    const first = await seedDemoConsole(platform.deps);
    expect(first).toEqual([`service:${DEMO_CONSOLE_HOSTNAME}`, 'nat-rules:2', 'security-group:Web 服务器']);
    expect(await seedDemoConsole(platform.deps)).toEqual([]);
    const login = await platform.api.post('/api/v2/client/login', { body: { account: DEMO_CLIENT.email, password: DEMO_CLIENT.password } });
    const token = login.body.data.access_token as string;
    const services = await platform.api.get('/api/v2/client/services', { token });
    expect(services.body.data.total).toBe(2);
    const row = await platform.deps.db.models.Service.findOne({ where: { hostname: DEMO_CONSOLE_HOSTNAME } });
    const service = (services.body.data.list as { id: number; status: string }[]).find((s) => s.id === row?.id);
    expect(service?.status).toBe('active');
    if (!service) return;
    const nat = await platform.api.get(`/api/v2/client/services/${service.id}/nat-rules`, { token });
    expect(nat.body.data).toMatchObject({ total: 2, page: 1 });
    expect(nat.body.data.list).toHaveLength(2);
    const groups = await platform.api.get(`/api/v2/client/services/${service.id}/security-groups`, { token });
    expect(groups.body.data.list).toEqual([expect.objectContaining({ name: 'Web 服务器', rule_count: 3, service_ids: [service.id] })]);
    const monitoring = await platform.api.get(`/api/v2/client/services/${service.id}/monitoring`, { token, query: { metric: 'cpu' } });
    expect(monitoring.body.data.points.length).toBeGreaterThan(0);
  });
});

import { expect } from 'vitest';
import { SANDBOX_CREDENTIALS } from '../../sandbox/launcher.js';
import { adjustBalance, purchase, registerClient, type TestClient } from './billing.js';
import type { TestPlatform } from './platform.js';
import { createCategory, startUpstreamForPlatform, type UpstreamSandbox } from './upstream-supplier.js';
import { eventually } from './wait.js';

/** Fast timings for tests: short polls, a few attempts, steps that time out quickly. */
export const PROVISION_TEST_ENV = {
  PROVISION_HOST_POLL_SECONDS: '1',
  PROVISION_ACTIVITY_TIMEOUT_SECONDS: '10',
  PROVISION_MAX_ATTEMPTS: '4',
};

export type UpstreamCatalogue = { sandbox: UpstreamSandbox; supplierId: number; productId: number; pluginId: number };

/**
 * The upstream sandbox, the upstream_finance plugin against it, a supplier created through the
 * admin API and the sandbox's product 101 (a cloud server) imported and on sale.
 */
export async function setUpUpstreamProduct(platform: TestPlatform, upstreamProductId = 101): Promise<UpstreamCatalogue> {
  const { sandbox, pluginId } = await startUpstreamForPlatform(platform);
  const token = await platform.rootToken();
  const supplier = await platform.api.post('/api/v2/admin/suppliers', {
    token,
    body: {
      code: `sup-${platform.id}`,
      name: '沙箱供应商',
      interface_type: 'upstream_finance_api',
      base_url: sandbox.baseUrl,
      account: SANDBOX_CREDENTIALS.upstream.username,
      api_key: SANDBOX_CREDENTIALS.upstream.apiKey,
    },
  });
  expect(supplier.body.code, supplier.body.message).toBe(0);
  const { category } = await createCategory(platform, 'cloud_server');
  const pulled = await platform.api.post(`/api/v2/admin/suppliers/${supplier.body.data.id}/product-pulls`, {
    token,
    body: { upstream_product_ids: [upstreamProductId], product_group_id: category.id, status: 'active' },
  });
  expect(pulled.body.data.imported, pulled.body.message).toHaveLength(1);
  return { sandbox, supplierId: supplier.body.data.id, productId: pulled.body.data.imported[0].product_id, pluginId };
}

export type BoughtService = { client: TestClient; invoice: { id: number; invoice_no: string }; serviceId: number };

/** A client buys the product and pays from a balance an admin credited; answers the new service. */
export async function buyWithBalance(platform: TestPlatform, productId: number, body: Record<string, unknown> = {}): Promise<BoughtService> {
  const client = await registerClient(platform);
  await adjustBalance(platform, client.id, '2000.00');
  const invoice = await purchase(platform, client, productId, body);
  const paid = await platform.api.post(`/api/v2/client/invoices/${invoice.id}/pay/balance`, { token: client.token });
  expect(paid.body.code, paid.body.message).toBe(0);
  const service = await eventually(() => platform.deps.db.models.Service.findOne({ where: { invoice_id: invoice.id } }));
  return { client, invoice, serviceId: service.id };
}

/** Waits until the service reaches one of the given statuses. */
export async function serviceReaches(platform: TestPlatform, serviceId: number, statuses: string[], attempts = 1200) {
  return eventually(async () => {
    const service = await platform.deps.db.models.Service.findByPk(serviceId);
    return service && statuses.includes(service.status) ? service : null;
  }, attempts);
}

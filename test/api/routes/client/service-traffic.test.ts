import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectError } from '../../../helpers/http.js';
import { adjustBalance, registerClient, type TestClient } from '../../../helpers/billing.js';
import { createService, type ServicesPlatform, startServicesPlatform, takeHost } from '../../../helpers/services.js';

let platform: ServicesPlatform;
let client: TestClient;

beforeAll(async () => {
  // Lists, quotes and orders only: the purchase upstream is tested in test/workflows/traffic-package/.
  platform = await startServicesPlatform({}, { worker: false });
  client = await registerClient(platform);
  await adjustBalance(platform, client.id, '2000.00');
});
afterAll(() => platform?.close());
beforeEach(() => platform.sandbox.control.clearFaults());

const base = '/api/v2/client/services';

async function order(serviceId: number, packageId: number) {
  const res = await platform.api.post(`${base}/${serviceId}/traffic-packages/order`, { token: client.token, body: { package_id: packageId } });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data as { id: number; invoice_no: string; amount: string };
}

describe('traffic packages', () => {
  it('lists the upstream’s packages at our price (the product binding’s 20 % markup) and quotes one', async () => {
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId });
    const list = await platform.api.get(`${base}/${id}/traffic-packages`, { token: client.token });
    expect(list.body.data).toEqual({
      list: [
        { package_id: 11, name: '流量包 100GB', size_gb: 100, price: '12.00', currency: 'CNY' },
        { package_id: 12, name: '流量包 500GB', size_gb: 500, price: '54.00', currency: 'CNY' },
        { package_id: 13, name: '流量包 1TB', size_gb: 1024, price: '96.00', currency: 'CNY' },
      ],
      total: 3,
      page: 1,
      page_size: 20,
    });
    expect(list.raw).not.toContain('upstream_price');
    const quote = await platform.api.post(`${base}/${id}/traffic-packages/quote`, { token: client.token, body: { package_id: 12 } });
    expect(quote.body.data).toEqual({ service_id: id, package_id: 12, name: '流量包 500GB', size_gb: 500, amount: '54.00', currency: 'CNY' });
    const unknown = await platform.api.post(`${base}/${id}/traffic-packages/quote`, { token: client.token, body: { package_id: 99 } });
    expectError(unknown, 42200, 422);
    expect(Object.keys(unknown.body.data.errors)).toEqual(['package_id']);
  });

  it('refuses packages for a service without an upstream binding or not running', async () => {
    const local = await createService(platform, { userId: client.id, productId: platform.productId });
    expectError(await platform.api.get(`${base}/${local}/traffic-packages`, { token: client.token }), 40943, 409);
    const suspended = await createService(platform, { userId: client.id, productId: platform.productId, hostId: takeHost(platform), status: 'suspended' });
    expectError(await platform.api.post(`${base}/${suspended}/traffic-packages/order`, { token: client.token, body: { package_id: 11 } }), 40944, 409);
    expect(await platform.deps.db.models.Invoice.count({ where: { service_id: [local, suspended] } })).toBe(0);
  });

  it('orders a package as an unpaid invoice; one unpaid package invoice at a time', async () => {
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId: takeHost(platform) });
    const invoice = await order(id, 12);
    expect(invoice).toMatchObject({ type: 'traffic_package', status: 'unpaid', amount: '54.00', service_id: id, order: { type: 'traffic_package' } });
    expect(await platform.deps.db.models.Invoice.findByPk(invoice.id)).toMatchObject({ type: 'traffic_package', status: 'unpaid', amount: '54.00' });
    const again = await platform.api.post(`${base}/${id}/traffic-packages/order`, { token: client.token, body: { package_id: 12 } });
    expect(again.body).toMatchObject({ message: '已有该流量包的未支付账单', data: { id: invoice.id } });
    expectError(await platform.api.post(`${base}/${id}/traffic-packages/order`, { token: client.token, body: { package_id: 13 } }), 40946, 409);
    expect(await platform.deps.db.models.Invoice.count({ where: { service_id: id } })).toBe(1);
  });
});

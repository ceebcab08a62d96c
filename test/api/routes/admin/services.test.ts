import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient, type TestClient } from '../../../helpers/billing.js';
import { expectError } from '../../../helpers/http.js';
import { createService, type ServicesPlatform, startServicesPlatform, takeHost } from '../../../helpers/services.js';

let platform: ServicesPlatform;
let client: TestClient;

beforeAll(async () => {
  // Console actions run on the request path: this file starts no workflow.
  platform = await startServicesPlatform({}, { worker: false });
  client = await registerClient(platform);
});
afterAll(() => platform?.close());

describe('admin services', () => {
  it('lists services with filters and shows a detail with the upstream binding and the latest events', async () => {
    const token = await platform.rootToken();
    const hostId = takeHost(platform);
    const id = await createService(platform, { userId: client.id, productId: platform.productId, hostId, password: 'Admin-Never-Sees-1' });
    await platform.api.post(`/api/v2/client/services/${id}/power`, { token: client.token, body: { action: 'reboot' } });
    const list = await platform.api.get('/api/v2/admin/services', { token, query: { supplier_id: platform.supplierId, user_id: client.id } });
    expect(list.body.data.list.map((s: { id: number }) => s.id)).toContain(id);
    expect(list.body.data.list.find((s: { id: number }) => s.id === id)).toMatchObject({ supplier_code: 'hk-cloud', upstream_host_id: hostId, user_id: client.id });
    const byUser = await platform.api.get(`/api/v2/admin/users/${client.id}/services`, { token, query: { status: 'active' } });
    expect(byUser.body.data.list.every((s: { user_id: number; status: string }) => s.user_id === client.id && s.status === 'active')).toBe(true);
    expectError(await platform.api.get('/api/v2/admin/users/999999/services', { token }), 40400, 404);

    const detail = await platform.api.get(`/api/v2/admin/services/${id}`, { token });
    expect(detail.body.data).toMatchObject({
      id,
      user_id: client.id,
      supplier: { id: platform.supplierId, code: 'hk-cloud' },
      binding: { provider_key: 'upstream_finance_api', upstream_product_id: '101', upstream_host_id: hostId },
      upstream: { host_id: hostId },
    });
    expect(detail.body.data.events[0]).toMatchObject({ kind: 'console', stage: 'reboot', status: 'succeeded', operator_type: 'user' });
    expect(detail.raw).not.toContain('Admin-Never-Sees-1');
    expectError(await platform.api.get('/api/v2/admin/services/999999', { token }), 40400, 404);
  });

  it('filters by supplier exactly as COALESCE(binding supplier, service supplier) does', async () => {
    // The list spells the condition out for the planner (domain/services/list-services.ts): same rows for every combination.
    const [row] = await platform.deps.db.sequelize.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (VALUES (1, 1, 1), (1, 2, 1), (2, 1, 1), (NULL, 1, 1), (NULL, 2, 1), (NULL, NULL, 1), (1, NULL, 1), (2, NULL, 1)) v(b, s, x)
        WHERE COALESCE(COALESCE(b, s) = x, false) <> COALESCE(b = x OR (b IS NULL AND s = x), false)`,
      { type: QueryTypes.SELECT },
    );
    expect(row?.n).toBe(0);
  });

  it('refuses an unknown status filter with 42200 naming the field', async () => {
    const token = await platform.rootToken();
    const bad = await platform.api.get('/api/v2/admin/services', { token, query: { status: 'sleeping' } });
    expectError(bad, 42200, 422);
    expect(Object.keys(bad.body.data.errors)).toEqual(['status']);
  });
});

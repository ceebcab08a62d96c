import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient } from '../../../helpers/billing.js';
import { selectRows } from '../../../helpers/db-read.js';
import { expectError } from '../../../helpers/http.js';
import { daysFromNow, seedService } from '../../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

/**
 * The admin provisioning routes on their own: lists, details and refused decisions. Decisions
 * taken on a provisioning that waits for an admin (retry, cancel) run through the workflow and
 * are tested with it (test/workflows/provisioning/); with the worker down, test/api/durability.test.ts.
 */
let platform: TestPlatform;
let token: string;
let serviceId: number;
let userId: number;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.rootToken();
  userId = (await registerClient(platform)).id;
  serviceId = await seedService(platform, { userId, nextDueAt: daysFromNow(30) });
});
afterAll(() => platform?.close());

const BASE = '/api/v2/admin/provisioning';

describe('admin provisioning list and detail', () => {
  it('lists the services of a user with their stage, and refuses an unknown stage filter (42200)', async () => {
    const res = await platform.api.get(BASE, { token, query: { user_id: userId } });
    expect(res.body.data.total).toBe(1);
    expect(res.body.data.list[0]).toMatchObject({ service_id: serviceId, user_id: userId, status: 'active' });
    expect((await platform.api.get(BASE, { token, query: { user_id: userId, status: 'failed' } })).body.data.total).toBe(0);
    expectError(await platform.api.get(BASE, { token, query: { stage: 'nowhere' } }), 42200, 422);
  });

  it('shows one service with its invoice and answers 40400 for an unknown one', async () => {
    const res = await platform.api.get(`${BASE}/${serviceId}`, { token });
    expect(res.body.data).toMatchObject({ service_id: serviceId, status: 'active', invoice_id: expect.any(Number) });
    expect(Array.isArray(res.body.data.steps)).toBe(true);
    expectError(await platform.api.get(`${BASE}/999999`, { token }), 40400, 404);
  });
});

describe('admin provisioning decisions that are refused', () => {
  it('refuses a retry or a cancel of a service that is not waiting for an admin (40931)', async () => {
    expectError(await platform.api.post(`${BASE}/${serviceId}/retry`, { token, body: {} }), 40931, 409);
    expectError(await platform.api.post(`${BASE}/${serviceId}/cancel`, { token, body: { reason: '测试' } }), 40931, 409);
  });

  it('answers 40400 for an unknown service and 42200 for a cancel without a reason', async () => {
    expectError(await platform.api.post(`${BASE}/999999/retry`, { token, body: {} }), 40400, 404);
    expectError(await platform.api.post(`${BASE}/${serviceId}/cancel`, { token, body: {} }), 42200, 422);
  });
});

describe('deep pages of the admin provisioning list', () => {
  it('answer the same rows, order and joined fields as one ordered read (ties on the stage time included)', async () => {
    const owner = (await registerClient(platform)).id;
    const services: number[] = [];
    for (let i = 0; i < 11; i += 1) services.push(await seedService(platform, { userId: owner, nextDueAt: daysFromNow(30) }));
    // Stage times in 3 distinct minutes (ties broken by id), one service without any (its creation time counts).
    await selectRows(
      platform,
      `UPDATE services SET stage_changed_at = CASE WHEN id = $2 THEN NULL ELSE date_trunc('minute', now()) - make_interval(mins => id % 3) END
        WHERE user_id = $1 RETURNING id`,
      [owner, services[4]],
    );
    const expected = await selectRows<{ id: number }>(
      platform,
      `SELECT w.id FROM services w WHERE w.user_id = $1 ORDER BY COALESCE(w.stage_changed_at, w.created_at) DESC, w.id DESC`,
      [owner],
    );
    const seen: Array<{ service_id: number; user_id: number; product_name: string }> = [];
    for (let page = 1; page <= 4; page += 1) {
      const res = await platform.api.get(BASE, { token, query: { user_id: String(owner), page: String(page), page_size: '3' } });
      expect(res.body.data.total).toBe(11);
      seen.push(...res.body.data.list);
    }
    expect(seen.map((s) => s.service_id)).toEqual(expected.map((s) => s.id));
    const names = await selectRows<{ id: number; product_name: string }>(platform, `SELECT id, product_name FROM services WHERE user_id = $1`, [owner]);
    for (const item of seen) {
      expect(item.user_id).toBe(owner);
      expect(item.product_name).toBe(names.find((n) => n.id === item.service_id)?.product_name);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient } from '../../../helpers/billing.js';
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

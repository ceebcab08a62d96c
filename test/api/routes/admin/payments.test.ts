import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

/**
 * The admin payment documents on their own. Payments are made by the QR flows
 * (test/api/routes/client/payments/) and listed after refunds (test/api/routes/admin/refunds.test.ts).
 */
let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

describe('admin payments', () => {
  it('lists payments by status as a page, and refuses an unknown status or sort key (42200)', async () => {
    const res = await platform.api.get('/api/v2/admin/payments', { token, query: { status: 'paid' } });
    expect(res.body.data).toMatchObject({ list: [], total: 0, page: 1 });
    expectError(await platform.api.get('/api/v2/admin/payments', { token, query: { status: 'lost' } }), 42200, 422);
    expectError(await platform.api.get('/api/v2/admin/payments', { token, query: { sort: 'secret' } }), 42200, 422);
  });

  it('answers 40400 for an unknown payment', async () => {
    expectError(await platform.api.get('/api/v2/admin/payments/999999', { token }), 40400, 404);
  });
});

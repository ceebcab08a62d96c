import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adjustBalance, registerClient, type TestClient } from '../../../helpers/billing.js';
import { expectError } from '../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;
let client: TestClient;

beforeAll(async () => {
  platform = await startTestPlatform();
  client = await registerClient(platform);
  for (const amount of ['120.50', '-200.00', '79.50']) await adjustBalance(platform, client.id, amount);
  await adjustBalance(platform, client.id, '1.00', '备'.repeat(200));
});
afterAll(() => platform?.close());

describe('the client balance', () => {
  it('answers the balance of the account', async () => {
    const res = await platform.api.get('/api/v2/client/balance', { token: client.token });
    expect(res.body.data).toMatchObject({ balance: '1.00', currency: 'CNY' });
    expectError(await platform.api.get('/api/v2/client/balance'), 40100, 401);
  });

  it('lists the ledger for the user, newest first, and shows one entry to its owner only', async () => {
    const logs = await platform.api.get('/api/v2/client/balance-logs', { token: client.token, query: { page_size: 2 } });
    expect(logs.body.data).toMatchObject({ total: 4, page_size: 2 });
    expect(logs.body.data.list[0]).toEqual({
      id: expect.any(Number),
      type: 'admin_recharge',
      type_label: '后台充值',
      amount: '1.00',
      balance_after: '1.00',
      currency: 'CNY',
      invoice_id: expect.any(Number),
      remark: '备'.repeat(200),
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
    const one = await platform.api.get(`/api/v2/client/balance-logs/${logs.body.data.list[0].id}`, { token: client.token });
    expect(one.body.data.id).toBe(logs.body.data.list[0].id);
    const stranger = await registerClient(platform);
    expectError(await platform.api.get(`/api/v2/client/balance-logs/${logs.body.data.list[0].id}`, { token: stranger.token }), 40400, 404);
    expect((await platform.api.get('/api/v2/client/balance-logs', { token: stranger.token })).body.data.total).toBe(0);
    expectError(await platform.api.get('/api/v2/client/balance-logs', { token: client.token, query: { page_size: 0 } }), 42200, 422);
  });
});

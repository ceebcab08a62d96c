import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adjustBalance, registerClient, type TestClient } from '../../../helpers/billing.js';
import { expectError } from '../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;
let token: string;
let client: TestClient;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.rootToken();
  client = await registerClient(platform);
  for (const amount of ['120.50', '-200.00', '79.50', '1.00']) await adjustBalance(platform, client.id, amount);
});
afterAll(() => platform?.close());

describe('the ledger for admins', () => {
  it('lists the account transactions of a user in sequence, and shows one', async () => {
    const transactions = await platform.api.get('/api/v2/admin/account-transactions', { token, query: { user_id: client.id, sort: 'id' } });
    expect(transactions.body.data.list.map((t: { seq: number; type: string; amount: string; balance_after: string }) => [t.seq, t.type, t.amount, t.balance_after])).toEqual([
      [1, 'admin_recharge', '120.50', '120.50'],
      [2, 'admin_deduction', '-200.00', '-79.50'],
      [3, 'admin_recharge', '79.50', '0.00'],
      [4, 'admin_recharge', '1.00', '1.00'],
    ]);
    const second = transactions.body.data.list[1];
    const one = await platform.api.get(`/api/v2/admin/account-transactions/${second.id}`, { token });
    expect(one.body.data).toMatchObject({ id: second.id, user_id: client.id, seq: 2, type: 'admin_deduction', balance_before: '120.50' });
    const deductions = await platform.api.get('/api/v2/admin/account-transactions', { token, query: { user_id: client.id, type: 'admin_deduction' } });
    expect(deductions.body.data.total).toBe(1);
    expectError(await platform.api.get('/api/v2/admin/account-transactions/999999', { token }), 40400, 404);
    expectError(await platform.api.get('/api/v2/admin/account-transactions', { token, query: { sort: 'balance_before' } }), 42200, 422);
  });

  it('lists the recharge records of admin recharges (none for a deduction), and shows one', async () => {
    const records = await platform.api.get('/api/v2/admin/recharge-records', { token, query: { user_id: client.id, scene: 'admin_recharge' } });
    expect(records.body.data.total).toBe(3);
    expect(records.body.data.list.every((r: { direction: string; scene: string }) => r.direction === 'in' && r.scene === 'admin_recharge')).toBe(true);
    const first = records.body.data.list[0];
    const one = await platform.api.get(`/api/v2/admin/recharge-records/${first.id}`, { token });
    expect(one.body.data).toMatchObject({ id: first.id, user_id: client.id, amount: first.amount, operator_name: 'root' });
    expect((await platform.api.get('/api/v2/admin/recharge-records', { token, query: { user_id: client.id, direction: 'out' } })).body.data.total).toBe(0);
    expectError(await platform.api.get('/api/v2/admin/recharge-records/999999', { token }), 40400, 404);
    const bad = await platform.api.get('/api/v2/admin/recharge-records', { token, query: { scene: 'lottery' } });
    expectError(bad, 42200, 422);
    expect(Object.keys(bad.body.data.errors)).toEqual(['scene']);
  });
});

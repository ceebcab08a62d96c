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
  await adjustBalance(platform, client.id, '300.00', '线下转账到账');
  await adjustBalance(platform, client.id, '-200.00', '误充退回');
});
afterAll(() => platform?.close());

describe('admin invoice documents', () => {
  it('lists a user\'s invoices by type and shows one with its items and operator', async () => {
    const invoices = await platform.api.get(`/api/v2/admin/users/${client.id}/invoices`, { token, query: { type: 'deduction' } });
    expect(invoices.body.data.list).toHaveLength(1);
    const detail = await platform.api.get(`/api/v2/admin/invoices/${invoices.body.data.list[0].id}`, { token });
    expect(detail.body.data).toMatchObject({ type: 'deduction', operator_name: 'root', remark: '误充退回', items: [{ description: '管理员后台扣款', amount: '200.00' }] });
    expectError(await platform.api.get('/api/v2/admin/invoices/999999', { token }), 40400, 404);
    expectError(await platform.api.get('/api/v2/admin/users/999999/invoices', { token }), 40400, 404);
  });

  it('lists every invoice with filters and a sort whitelist, and refuses an unknown filter value', async () => {
    const other = await registerClient(platform);
    await adjustBalance(platform, other.id, '5.00');
    const mine = await platform.api.get('/api/v2/admin/invoices', { token, query: { user_id: client.id, sort: 'amount' } });
    expect(mine.body.data.list.map((i: { type: string; amount: string }) => [i.type, i.amount])).toEqual([
      ['deduction', '200.00'],
      ['recharge', '300.00'],
    ]);
    const recharges = await platform.api.get('/api/v2/admin/invoices', { token, query: { type: 'recharge', sort: '-id' } });
    expect(recharges.body.data.total).toBe(2);
    expect(recharges.body.data.list[0].user_id).toBe(other.id);
    const bad = await platform.api.get('/api/v2/admin/invoices', { token, query: { type: 'gift', sort: 'subject' } });
    expectError(bad, 42200, 422);
    expect(Object.keys(bad.body.data.errors).sort()).toEqual(['sort', 'type']);
  });
});

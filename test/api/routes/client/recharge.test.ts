import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceOf, type BillingPlatform, buyerPays, expectBooksBalanced, registerClient, startBillingPlatform } from '../../../helpers/billing.js';
import { expectError } from '../../../helpers/http.js';
import { eventually } from '../../../helpers/wait.js';

let platform: BillingPlatform;

beforeAll(async () => {
  platform = await startBillingPlatform();
});
afterAll(() => platform?.close());

describe('user recharge', () => {
  it('creates a recharge invoice paid by QR; once paid the balance is credited with a user_recharge record', async () => {
    const client = await registerClient(platform);
    const res = await platform.api.post('/api/v2/client/recharge', { token: client.token, body: { amount: 100 } });
    expect(res.body.data).toMatchObject({ status: 'unpaid', amount: '100.00', paid: false, payment: { status: 'pending', amount: '100.00' } });
    await buyerPays(res.body.data.payment.qr_code_url);
    const state = await eventually(async () => {
      const r = await platform.api.get(`/api/v2/client/recharge/${res.body.data.invoice_id}`, { token: client.token });
      return r.body.data.paid ? r.body.data : null;
    });
    expect(state).toMatchObject({ status: 'paid', payment: { status: 'paid' } });
    expect(await balanceOf(platform, client)).toBe('100.00');
    const m = platform.deps.db.models;
    const credit = await m.AccountTransaction.findOne({ where: { user_id: client.id } });
    expect(credit).toMatchObject({ type: 'recharge', amount: '100.00', invoice_id: res.body.data.invoice_id });
    expect(await m.RechargeRecord.findOne({ where: { invoice_id: res.body.data.invoice_id } })).toMatchObject({
      scene: 'user_recharge',
      direction: 'in',
      amount: '100.00',
      account_transaction_id: credit?.id,
      order_id: null,
    });
    expect((await m.Invoice.findByPk(res.body.data.invoice_id))?.dispatched_at).not.toBeNull();
    await expectBooksBalanced(platform);
  });

  it.each([['0.99'], ['50000.01'], ['-5'], ['1.234'], ['abc']])('refuses the amount %s with 42200', async (amount) => {
    const client = await registerClient(platform);
    const res = await platform.api.post('/api/v2/client/recharge', { token: client.token, body: { amount } });
    expectError(res, 42200, 422);
    expect(res.body.data.errors.amount[0]).toMatch(/\p{Script=Han}/u);
    expect(await platform.deps.db.models.Invoice.count({ where: { user_id: client.id } })).toBe(0);
  });

  it('shows a recharge to its owner only, and refuses a malformed id', async () => {
    const client = await registerClient(platform);
    const res = await platform.api.post('/api/v2/client/recharge', { token: client.token, body: { amount: '20.00' } });
    const id = res.body.data.invoice_id as number;
    expect((await platform.api.get(`/api/v2/client/recharge/${id}`, { token: client.token })).body.data).toMatchObject({ invoice_id: id, status: 'unpaid', amount: '20.00', paid: false });
    const stranger = await registerClient(platform);
    expectError(await platform.api.get(`/api/v2/client/recharge/${id}`, { token: stranger.token }), 40400, 404);
    expectError(await platform.api.get('/api/v2/client/recharge/abc', { token: client.token }), 42200, 422);
  });
});

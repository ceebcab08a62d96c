import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resettleCommission, releaseDueCommissions } from '../../../../domain/marketing/commissions.js';
import { adjustBalance, balanceOf, createProduct, expectBooksBalanced, registerClient } from '../../../helpers/billing.js';
import { expectError } from '../../../helpers/http.js';
import { marketingCalls } from '../../../helpers/marketing.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;
let root: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  root = await platform.rootToken();
});
afterAll(() => platform?.close());

const { admin, buy, payByBalance, referralOf, registerWithCode } = marketingCalls(() => ({ platform, root }));

describe('referral commissions and withdrawals', () => {
  it('binds the referrer once at registration, books a pending commission, releases it, and pays one withdrawal once under 20 racing approvals', async () => {
    const product = await createProduct(platform, '400.00');
    const referrer = await registerClient(platform);
    const { code: refCode } = await referralOf(referrer);
    expectError(await platform.api.post('/api/v2/client/register', { body: { email: `x-${randomBytes(4).toString('hex')}@example.com`, password: 'buyer-password-1', referral_code: 'ZZZZZZZZ' } }), 42200, 422);
    const invitee = await registerWithCode(refCode);
    // The binding never changes, even by a direct UPDATE.
    await expect(platform.deps.db.sequelize.query('UPDATE referral_accounts SET referrer_id = NULL, bound_at = NULL WHERE user_id = :id', { replacements: { id: invitee.id } })).rejects.toThrow();

    await adjustBalance(platform, invitee.id, '400.00');
    const invoice = await buy(invitee, product.id);
    await payByBalance(invitee, invoice.body.data.id);
    expect(await referralOf(referrer)).toMatchObject({ pending_amount: '20.00', available_amount: '0.00', invitees: 1 });
    const invitees = await platform.api.get('/api/v2/client/referral/invitees', { token: referrer.token });
    expect(invitees.body.data.list[0].email_masked).toMatch(/^in\*\*\*@example\.com$/);
    expect(JSON.stringify(invitees.body.data)).not.toContain(`invitee-`);

    // A repeated settlement books nothing twice.
    await resettleCommission(platform.deps, invoice.body.data.id);
    await platform.deps.db.sequelize.query(`UPDATE commission_entries SET available_at = now() - interval '1 minute' WHERE user_id = :id`, { replacements: { id: referrer.id } });
    const released = await releaseDueCommissions(platform.deps);
    expect(released.entries).toBeGreaterThanOrEqual(1);
    expect(await releaseDueCommissions(platform.deps)).toMatchObject({ entries: 0 });
    expect(await referralOf(referrer)).toMatchObject({ pending_amount: '0.00', available_amount: '20.00' });

    const tooMuch = await platform.api.post('/api/v2/client/referral-withdrawals', { token: referrer.token, body: { amount: '25.00', method: 'balance' } });
    expectError(tooMuch, 40982, 409);
    const w = await platform.api.post('/api/v2/client/referral-withdrawals', { token: referrer.token, body: { amount: '15.00', method: 'balance' } });
    expect(w.body.code, w.body.message).toBe(0);
    expect(await referralOf(referrer)).toMatchObject({ available_amount: '5.00', frozen_amount: '15.00' });

    const approvals = await Promise.all(Array.from({ length: 20 }, () => platform.api.post(`/api/v2/admin/referral-withdrawals/${w.body.data.id}/approve`, { token: root })));
    expect(approvals.filter((a) => a.body.code === 0)).toHaveLength(1);
    expect(approvals.filter((a) => a.body.code === 40981)).toHaveLength(19);
    expect(await balanceOf(platform, referrer)).toBe('15.00');
    expect(await platform.deps.db.models.AccountTransaction.count({ where: { user_id: referrer.id, type: 'commission_withdrawal' } })).toBe(1);
    expect(await referralOf(referrer)).toMatchObject({ available_amount: '5.00', frozen_amount: '0.00', withdrawn_amount: '15.00' });
    expectError(await platform.api.post(`/api/v2/admin/referral-withdrawals/${w.body.data.id}/reject`, { token: root, body: { reason: '晚了' } }), 40981, 409);

    // A full refund after the commission was released and withdrawn claws all of it back (a debt).
    const refund = await platform.api.post(`/api/v2/admin/users/${invitee.id}/invoices/${invoice.body.data.id}/refunds`, { token: root, body: { refund_method: 'balance', remark: '退款' } });
    expect(refund.body.code, refund.body.message).toBe(0);
    expect(await referralOf(referrer)).toMatchObject({ available_amount: '-15.00' });
    const commissions = await platform.api.get('/api/v2/client/referral/commissions', { token: referrer.token });
    expect(commissions.body.data.list.map((e: { kind: string; amount: string }) => `${e.kind} ${e.amount}`).sort()).toEqual(['clawback -20.00', 'commission 20.00']);
    expect(Object.keys(commissions.body.data).sort()).toEqual(['list', 'page', 'page_size', 'total']);
    const onePerPage = await platform.api.get('/api/v2/client/referral/commissions', { token: referrer.token, query: { page_size: 1 } });
    expect(onePerPage.body.data).toMatchObject({ total: 2, page: 1, page_size: 1 });
    expect(onePerPage.body.data.list).toHaveLength(1);
    const sum = await platform.api.get('/api/v2/client/referral/commissions/summary', { token: referrer.token });
    expect(sum.body.data).toEqual({ count: 2, amount: '0.00' });
    const clawbacks = await platform.api.get('/api/v2/client/referral/commissions/summary', { token: referrer.token, query: { kind: 'clawback' } });
    expect(clawbacks.body.data).toEqual({ count: 1, amount: '-20.00' });
    await expectBooksBalanced(platform);
  });

  it('a settlement repeated while a refund runs pays once and claws back what the refund says', async () => {
    const product = await createProduct(platform, '200.00');
    const referrer = await registerClient(platform);
    const invitee = await registerWithCode((await referralOf(referrer)).code);
    await adjustBalance(platform, invitee.id, '200.00');
    const invoice = await buy(invitee, product.id);
    await payByBalance(invitee, invoice.body.data.id);
    const [refund] = await Promise.all([
      platform.api.post(`/api/v2/admin/users/${invitee.id}/invoices/${invoice.body.data.id}/refunds`, { token: root, body: { refund_method: 'balance', remark: '部分退款', amount: '50.00' } }),
      ...Array.from({ length: 5 }, () => resettleCommission(platform.deps, invoice.body.data.id)),
    ]);
    expect(refund.body.code, refund.body.message).toBe(0);
    await resettleCommission(platform.deps, invoice.body.data.id);
    const entries = await platform.api.get('/api/v2/admin/referral/commissions', { token: root, query: { invoice_id: String(invoice.body.data.id) } });
    expect(entries.body.data.list.map((e: { kind: string; amount: string }) => `${e.kind} ${e.amount}`).sort()).toEqual(['clawback -2.50', 'commission 10.00']);
    expect(Object.keys(entries.body.data).sort()).toEqual(['list', 'page', 'page_size', 'total']);
    const entriesSum = await platform.api.get('/api/v2/admin/referral/commissions/summary', { token: root, query: { invoice_id: String(invoice.body.data.id) } });
    expect(entriesSum.body.data).toEqual({ count: 2, amount: '7.50' });
    expect(await referralOf(referrer)).toMatchObject({ pending_amount: '7.50' });
    await expectBooksBalanced(platform);
  });

  it('rejects and marks paid by expected status; validates input; hides other users\' withdrawals (40400)', async () => {
    const referrer = await registerClient(platform);
    const stranger = await registerClient(platform);
    await referralOf(referrer);
    const badInputs = [{ amount: 'abc', method: 'balance' }, { amount: '20', method: 'card' }, { amount: '20', method: 'external' }, { amount: '1.00', method: 'balance' }, { amount: '999999', method: 'balance' }];
    for (const body of badInputs) expectError(await platform.api.post('/api/v2/client/referral-withdrawals', { token: referrer.token, body }), 42200, 422);
    expectError(await platform.api.post('/api/v2/client/referral-withdrawals', { token: referrer.token, body: { amount: '20', method: 'balance' } }), 40982, 409);

    // Fund the referrer through a real commission.
    const product = await createProduct(platform, '1000.00');
    const invitee = await registerWithCode((await referralOf(referrer)).code);
    await adjustBalance(platform, invitee.id, '1000.00');
    await payByBalance(invitee, (await buy(invitee, product.id)).body.data.id);
    await platform.deps.db.sequelize.query(`UPDATE commission_entries SET available_at = now() WHERE user_id = :id`, { replacements: { id: referrer.id } });
    await releaseDueCommissions(platform.deps);

    const ext = await platform.api.post('/api/v2/client/referral-withdrawals', { token: referrer.token, body: { amount: '20', method: 'external', account_name: '张三', account_no: '6222020000001234' } });
    expect(ext.body.code, ext.body.message).toBe(0);
    expect(ext.body.data.account_no_masked).not.toContain('6222020000001234');
    expectError(await platform.api.get(`/api/v2/client/referral-withdrawals/${ext.body.data.id}`, { token: stranger.token }), 40400, 404);
    expectError(await platform.api.post(`/api/v2/admin/referral-withdrawals/${ext.body.data.id}/mark-paid`, { token: root }), 40981, 409);
    expect((await admin('post', `/api/v2/admin/referral-withdrawals/${ext.body.data.id}/approve`)).status).toBe('approved');
    const paid = await Promise.all(Array.from({ length: 5 }, () => platform.api.post(`/api/v2/admin/referral-withdrawals/${ext.body.data.id}/mark-paid`, { token: root })));
    expect(paid.filter((p) => p.body.code === 0)).toHaveLength(1);

    const rej = await platform.api.post('/api/v2/client/referral-withdrawals', { token: referrer.token, body: { amount: '10', method: 'balance' } });
    expectError(await platform.api.post(`/api/v2/admin/referral-withdrawals/${rej.body.data.id}/reject`, { token: root, body: { reason: '' } }), 42200, 422);
    expect((await admin('post', `/api/v2/admin/referral-withdrawals/${rej.body.data.id}/reject`, { reason: '信息不符' })).status).toBe('rejected');
    expect(await referralOf(referrer)).toMatchObject({ available_amount: '30.00', withdrawn_amount: '20.00', frozen_amount: '0.00' });
    const list = await admin('get', `/api/v2/admin/referral-withdrawals?user_id=${referrer.id}`);
    expect(Object.keys(list).sort()).toEqual(['list', 'page', 'page_size', 'total']);
    expect(await admin('get', `/api/v2/admin/referral-withdrawals?user_id=${referrer.id}&page_size=1`)).toMatchObject({ total: list.total, page_size: 1, list: [list.list[0]] });
    const summary = await admin('get', `/api/v2/admin/referral-withdrawals/summary?user_id=${referrer.id}`);
    expect(summary.count).toBe(list.total);
    expect(summary.totals).toMatchObject({ paid: { count: 1, amount: '20.00' }, rejected: { count: 1, amount: '10.00' } });
    expectError(await platform.api.post('/api/v2/admin/referral-withdrawals/2147483647/approve', { token: root }), 40400, 404);
    await expectBooksBalanced(platform);
  });
});

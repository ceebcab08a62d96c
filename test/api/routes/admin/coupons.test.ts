import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resettleCommission, releaseDueCommissions } from '../../../../domain/marketing/commissions.js';
import { applySpendLevels } from '../../../../domain/marketing/member-levels.js';
import { adjustBalance, balanceOf, createProduct, expectBooksBalanced, registerClient, type TestClient } from '../../../helpers/billing.js';
import { expectError } from '../../../helpers/http.js';
import { daysFromNow, seedService } from '../../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;
let root: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  root = await platform.rootToken();
});
afterAll(() => platform?.close());

const code = (prefix = 'T') => `${prefix}${randomBytes(5).toString('hex').toUpperCase()}`;

async function admin(method: 'get' | 'post' | 'put' | 'del', path: string, body?: unknown) {
  const res = await platform.api[method](path, { token: root, ...(body === undefined ? {} : { body }) });
  expect(res.body.code, `${method} ${path}: ${res.body.message} ${JSON.stringify(res.body.data)}`).toBe(0);
  return res.body.data;
}

async function createCoupon(body: Record<string, unknown>) {
  return admin('post', '/api/v2/admin/coupons', { code: code(), name: '测试券', kind: 'percent', value: '10', ...body });
}

async function registerWithCode(referralCode: string): Promise<TestClient> {
  const res = await platform.api.post('/api/v2/client/register', {
    body: { email: `invitee-${randomBytes(5).toString('hex')}@example.com`, password: 'buyer-password-1', referral_code: referralCode },
  });
  expect(res.body.code, res.body.message).toBe(0);
  return { id: res.body.data.user.id as number, token: res.body.data.access_token as string };
}

function buy(client: TestClient, productId: number, extra: Record<string, unknown> = {}) {
  return platform.api.post('/api/v2/client/invoices', { token: client.token, body: { product_id: productId, billing_period: 'monthly', ...extra } });
}

async function payByBalance(client: TestClient, invoiceId: number) {
  const res = await platform.api.post(`/api/v2/client/invoices/${invoiceId}/pay/balance`, { token: client.token });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data;
}

async function referralOf(client: TestClient) {
  const res = await platform.api.get('/api/v2/client/referral', { token: client.token });
  expect(res.body.code).toBe(0);
  return res.body.data;
}

describe('coupons on the one pricing function', () => {
  it('quote and invoice agree; the discount is an invoice line; cancel releases the use, payment makes it final, a refund follows the discounted amount', async () => {
    const product = await createProduct(platform, '80.00');
    const coupon = await createCoupon({ kind: 'percent', value: '15', min_amount: '50', total_uses: 5, per_user_limit: 2 });
    const client = await registerClient(platform);

    const quote = await platform.api.post(`/api/v2/site/products/${product.id}/quote`, { token: client.token, body: { billing_period: 'monthly', coupon_code: coupon.code.toLowerCase() } });
    expect(quote.body.code, quote.body.message).toBe(0);
    expect(quote.body.data).toMatchObject({ subtotal_amount: '80.00', discount_amount: '12.00', total_amount: '68.00', coupon_code: coupon.code });
    expect(quote.body.data.lines.at(-1)).toMatchObject({ key: 'discount.coupon', amount: '-12.00' });

    // Without a token a coupon cannot be quoted (the per-user rules need the user).
    const anonymous = await platform.api.post(`/api/v2/site/products/${product.id}/quote`, { body: { billing_period: 'monthly', coupon_code: coupon.code } });
    expectError(anonymous, 42200, 422);
    expect(anonymous.body.data.errors.coupon_code).toBeDefined();

    const first = await buy(client, product.id, { coupon_code: coupon.code });
    expect(first.body.code, first.body.message).toBe(0);
    expect(first.body.data.amount).toBe(quote.body.data.total_amount);
    expect(first.body.data.items.map((i: { amount: string }) => i.amount)).toEqual(['80.00', '-12.00']);
    expect((await admin('get', `/api/v2/admin/coupons/${coupon.id}`)).used).toBe(1);

    const cancelled = await platform.api.post(`/api/v2/client/invoices/${first.body.data.id}/cancel`, { token: client.token });
    expect(cancelled.body.code).toBe(0);
    expect((await admin('get', `/api/v2/admin/coupons/${coupon.id}`)).used).toBe(0);

    await adjustBalance(platform, client.id, '100.00');
    const second = await buy(client, product.id, { coupon_code: coupon.code });
    expect(second.body.code).toBe(0);
    await payByBalance(client, second.body.data.id);
    expect(await balanceOf(platform, client)).toBe('32.00');
    const uses = await admin('get', `/api/v2/admin/coupons/${coupon.id}/uses`);
    expect(Object.keys(uses).sort()).toEqual(['list', 'page', 'page_size', 'total']);
    expect(uses.list.map((u: { status: string }) => u.status).sort()).toEqual(['final', 'released']);
    expect(await admin('get', `/api/v2/admin/coupons/${coupon.id}/uses/summary`)).toEqual({ count: 2, discount_amount: '12.00', final_discount_amount: '12.00' });
    expect(await admin('get', `/api/v2/admin/coupons/${coupon.id}/uses/summary?status=released`)).toEqual({ count: 1, discount_amount: '0.00', final_discount_amount: '0.00' });
    // page_size is honoured and the summary takes the filters only.
    expect(await admin('get', `/api/v2/admin/coupons/${coupon.id}/uses?page_size=1&page=2`)).toMatchObject({ total: 2, page: 2, page_size: 1, list: [expect.anything()] });
    expectError(await platform.api.get(`/api/v2/admin/coupons/${coupon.id}/uses/summary`, { token: root, query: { page: 1 } }), 42200, 422);

    const refund = await platform.api.post(`/api/v2/admin/users/${client.id}/invoices/${second.body.data.id}/refunds`, {
      token: root,
      body: { refund_method: 'balance', remark: '测试退款' },
    });
    expect(refund.body.code, refund.body.message).toBe(0);
    expect((await platform.deps.db.models.Refund.findByPk(refund.body.data.id as number))?.amount).toBe('68.00');
    expect(await balanceOf(platform, client)).toBe('100.00');
    await expectBooksBalanced(platform);
  });

  it('refuses a coupon that does not apply, with the reason on coupon_code', async () => {
    const product = await createProduct(platform, '20.00');
    const other = await createProduct(platform, '20.00');
    const client = await registerClient(platform);
    const cases: [Record<string, unknown>, number][] = [
      [{ product_ids: [other.id] }, product.id],
      [{ min_amount: '100' }, product.id],
      [{ status: 'disabled' }, product.id],
      [{ scenes: ['renewal'] }, product.id],
      [{ ends_at: '2020-01-01 00:00:00', starts_at: '2019-01-01 00:00:00' }, product.id],
    ];
    for (const [extra, productId] of cases) {
      const coupon = await createCoupon(extra);
      const res = await buy(client, productId, { coupon_code: coupon.code });
      expectError(res, 42200, 422);
      expect(res.body.data.errors.coupon_code, JSON.stringify(extra)).toHaveLength(1);
    }
    expectError(await buy(client, product.id, { coupon_code: 'NOSUCHCODE' }), 42200, 422);
    // A coupon issued to another user reads as unknown.
    const stranger = await registerClient(platform);
    const owned = await createCoupon({ owner_user_id: stranger.id });
    expect((await buy(client, product.id, { coupon_code: owned.code })).body.data.errors.coupon_code).toEqual(['优惠码不存在']);
    expect(await platform.deps.db.models.Invoice.count({ where: { user_id: client.id } })).toBe(0);
  });

  it('50 users racing for the last use: exactly one invoice gets it', async () => {
    const product = await createProduct(platform, '30.00');
    const coupon = await createCoupon({ kind: 'fixed', value: '5', total_uses: 3 });
    // Two uses are already taken.
    for (let i = 0; i < 2; i++) expect((await buy(await registerClient(platform), product.id, { coupon_code: coupon.code })).body.code).toBe(0);
    const clients = await Promise.all(Array.from({ length: 50 }, () => registerClient(platform)));
    const answers = await Promise.all(clients.map((c) => buy(c, product.id, { coupon_code: coupon.code })));
    const codes = answers.map((a) => a.body.code);
    expect(codes.filter((c) => c === 0)).toHaveLength(1);
    expect(codes.every((c) => c === 0 || c === 40980 || c === 42200)).toBe(true);
    expect((await admin('get', `/api/v2/admin/coupons/${coupon.id}`)).used).toBe(3);
    const invoices = await platform.deps.db.models.Invoice.count({ where: { user_id: clients.map((c) => c.id) } });
    expect(invoices).toBe(1);
    await expectBooksBalanced(platform);
  });

  it('one user racing against their own per-user limit gets it once', async () => {
    const product = await createProduct(platform, '30.00');
    const coupon = await createCoupon({ kind: 'fixed', value: '5', per_user_limit: 1 });
    const client = await registerClient(platform);
    const answers = await Promise.all(Array.from({ length: 10 }, () => buy(client, product.id, { coupon_code: coupon.code })));
    expect(answers.filter((a) => a.body.code === 0)).toHaveLength(1);
    expect((await admin('get', `/api/v2/admin/coupons/${coupon.id}`)).used).toBe(1);
    await expectBooksBalanced(platform);
  });

  it('campaigns generate unique single-use codes or one shared code and total their uses', async () => {
    const product = await createProduct(platform, '40.00');
    const batch = await admin('post', '/api/v2/admin/coupon-campaigns', { campaign_name: '双十一', mode: 'batch', count: 5, code_prefix: 'D11', name: '双十一券', kind: 'fixed', value: '8' });
    expect(batch.coupons).toBe(5);
    const codes = await admin('get', `/api/v2/admin/coupons?campaign_id=${batch.id}`);
    expect(new Set(codes.list.map((c: { code: string }) => c.code)).size).toBe(5);
    expect(codes.list.every((c: { total_uses: number; code: string }) => c.total_uses === 1 && c.code.startsWith('D11'))).toBe(true);
    const client = await registerClient(platform);
    expect((await buy(client, product.id, { coupon_code: codes.list[0].code })).body.code).toBe(0);
    const uses = await admin('get', `/api/v2/admin/coupon-campaigns/${batch.id}/uses`);
    expect(uses).toEqual({ list: [expect.objectContaining({ code: codes.list[0].code })], total: 1, page: 1, page_size: 20 });
    expect(await admin('get', `/api/v2/admin/coupon-campaigns/${batch.id}/uses/summary`)).toMatchObject({ count: 1, discount_amount: '8.00' });
    expect((await admin('get', `/api/v2/admin/coupon-campaigns/${batch.id}`)).uses).toBe(1);

    const shared = await platform.api.post('/api/v2/admin/coupon-campaigns', { token: root, body: { campaign_name: '共享', mode: 'shared', name: '共享券', kind: 'fixed', value: '1' } });
    expectError(shared, 42200, 422);
  });

  it('edits a coupon: every field but its code and campaign', async () => {
    const made = await createCoupon({ total_uses: 5 });
    const edited = await admin('put', `/api/v2/admin/coupons/${made.id}`, { name: '改名券', kind: 'fixed', value: '3.50', scenes: ['renewal', 'upgrade'], total_uses: 7, per_user_limit: 2 });
    expect(edited).toMatchObject({ id: made.id, code: made.code, name: '改名券', kind: 'fixed', value: '3.50', scenes: ['renewal', 'upgrade'], total_uses: 7, per_user_limit: 2 });
    expect(await admin('get', `/api/v2/admin/coupons/${made.id}`)).toMatchObject({ code: made.code, name: '改名券', value: '3.50' });
  });

  it('validates admin input and answers 40900 for a taken code, 40400 for unknown ids', async () => {
    const taken = await createCoupon({});
    expectError(await platform.api.post('/api/v2/admin/coupons', { token: root, body: { code: taken.code, name: 'x', kind: 'fixed', value: '1' } }), 40900, 409);
    const bad = await platform.api.post('/api/v2/admin/coupons', { token: root, body: { code: 'a b', name: '', kind: 'percent', value: '150', total_uses: -1, starts_at: 'tomorrow' } });
    expectError(bad, 42200, 422);
    expect(Object.keys(bad.body.data.errors).sort()).toEqual(expect.arrayContaining(['code', 'name', 'total_uses', 'starts_at']));
    expectError(await platform.api.post('/api/v2/admin/coupons', { token: root, body: { code: code(), name: 'x', kind: 'percent', value: '150' } }), 42200, 422);
    expectError(await platform.api.get('/api/v2/admin/coupons/2147483647', { token: root }), 40400, 404);
    expectError(await platform.api.put('/api/v2/admin/coupons/2147483647', { token: root, body: { name: 'x', kind: 'fixed', value: '1' } }), 40400, 404);
  });

  it('a client sees their own and public coupons only', async () => {
    const client = await registerClient(platform);
    const other = await registerClient(platform);
    const mine = await createCoupon({ owner_user_id: client.id });
    const theirs = await createCoupon({ owner_user_id: other.id });
    const open = await createCoupon({ is_public: true });
    const list = await platform.api.get('/api/v2/client/coupons', { token: client.token });
    expect(list.body.data.list.map((c: { code: string }) => c.code)).toEqual([mine.code]);
    const pub = await platform.api.get('/api/v2/client/coupons/public', { token: client.token, query: { page_size: '100' } });
    const pubCodes = pub.body.data.list.map((c: { code: string }) => c.code);
    expect(pubCodes).toContain(open.code);
    expect(pubCodes).not.toContain(theirs.code);
  });
});

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

describe('member levels', () => {
  it('an assigned level is a line in quote and invoice, combined with a coupon after it; spend reaches levels; product rates win over levels', async () => {
    const product = await createProduct(platform, '100.00');
    const level = await admin('post', '/api/v2/admin/member-levels', { name: `黄金-${code()}`, discount_percent: '10', commission_rate: '8', product_ids: [product.id] });
    const client = await registerClient(platform);
    await admin('put', `/api/v2/admin/member-levels/users/${client.id}`, { level_id: level.id });
    const coupon = await createCoupon({ kind: 'fixed', value: '20', min_amount: '90' });

    const quote = await platform.api.post(`/api/v2/site/products/${product.id}/quote`, { token: client.token, body: { billing_period: 'monthly', coupon_code: coupon.code } });
    expect(quote.body.data).toMatchObject({ subtotal_amount: '100.00', discount_amount: '30.00', total_amount: '70.00' });
    expect(quote.body.data.lines.map((l: { key: string }) => l.key)).toEqual(['base', 'discount.member', 'discount.coupon']);
    const invoice = await buy(client, product.id, { coupon_code: coupon.code });
    expect(invoice.body.data.amount).toBe('70.00');

    // The referrer's level sets the commission rate; a product rate wins over it.
    const invitee = await registerWithCode((await referralOf(client)).code);
    await adjustBalance(platform, invitee.id, '200.00');
    await payByBalance(invitee, (await buy(invitee, product.id)).body.data.id);
    await admin('put', `/api/v2/admin/referral/product-rates/${product.id}`, { rate: '12.5' });
    const rates = await admin('get', '/api/v2/admin/referral/product-rates?page_size=1');
    expect(Object.keys(rates).sort()).toEqual(['list', 'page', 'page_size', 'total']);
    expect(rates).toMatchObject({ page: 1, page_size: 1 });
    expect(rates.list).toHaveLength(1);
    const allRates = await admin('get', `/api/v2/admin/referral/product-rates?page_size=${rates.total}`);
    expect(allRates.list).toContainEqual(expect.objectContaining({ product_id: product.id, rate: '12.50' }));
    const levels = await admin('get', '/api/v2/admin/member-levels?page_size=1');
    expect(levels).toMatchObject({ page: 1, page_size: 1 });
    expect(levels.list).toHaveLength(1);
    const allLevels = await admin('get', `/api/v2/admin/member-levels?page_size=${Math.min(levels.total, 100)}`);
    expect(allLevels.list.map((l: { id: number }) => l.id)).toContain(level.id);
    await payByBalance(invitee, (await buy(invitee, product.id)).body.data.id);
    const entries = await platform.api.get('/api/v2/client/referral/commissions', { token: client.token });
    expect(entries.body.data.list.map((e: { rate: string; amount: string }) => `${e.rate} ${e.amount}`)).toEqual(['12.50 12.50', '8.00 8.00']);
    await admin('del', `/api/v2/admin/referral/product-rates/${product.id}`);

    expectError(await platform.api.del(`/api/v2/admin/member-levels/${level.id}`, { token: root }), 40901, 409);
    expectError(await platform.api.post('/api/v2/admin/member-levels', { token: root, body: { name: level.name } }), 40900, 409);
    expectError(await platform.api.post('/api/v2/admin/member-levels', { token: root, body: { name: 'x', discount_percent: '100', commission_rate: '101' } }), 42200, 422);
    expectError(await platform.api.put('/api/v2/admin/member-levels/users/2147483647', { token: root, body: { level_id: level.id } }), 40400, 404);

    const spender = await registerClient(platform);
    const spendLevel = await admin('post', '/api/v2/admin/member-levels', { name: `白银-${code()}`, discount_percent: '5', min_spend: '150' });
    await adjustBalance(platform, spender.id, '300.00');
    for (let i = 0; i < 2; i++) await payByBalance(spender, (await buy(spender, product.id)).body.data.id);
    await applySpendLevels(platform.deps);
    const reached = await admin('get', `/api/v2/admin/member-levels/users/${spender.id}`);
    expect(reached).toMatchObject({ source: 'spend', level: { id: spendLevel.id } });
    expect((await admin('get', `/api/v2/admin/member-levels/users/${client.id}`)).level.id).toBe(level.id);
    expect(spendLevel.min_spend).toBe('150.00');
    await expectBooksBalanced(platform);
  });
});

describe('renewals and settings', () => {
  it('a renewal invoice takes a renewal coupon as a line; a purchase-only coupon is refused for it', async () => {
    const client = await registerClient(platform);
    const serviceId = await seedService(platform, { userId: client.id, nextDueAt: daysFromNow(5), price: '30.00' });
    const purchaseOnly = await createCoupon({ kind: 'fixed', value: '5', scenes: ['purchase'] });
    const refused = await platform.api.post(`/api/v2/client/services/${serviceId}/renew`, { token: client.token, body: { billing_period: 'monthly', coupon_code: purchaseOnly.code } });
    expectError(refused, 42200, 422);
    expect(refused.body.data.errors.coupon_code).toEqual(['该优惠券不能用于续费']);
    const renewal = await createCoupon({ kind: 'fixed', value: '5', scenes: ['renewal'] });
    const made = await platform.api.post(`/api/v2/client/services/${serviceId}/renew`, { token: client.token, body: { billing_period: 'monthly', coupon_code: renewal.code } });
    expect(made.body.code, made.body.message).toBe(0);
    expect(made.body.data.amount).toBe('25.00');
    expect(made.body.data.items.map((i: { amount: string }) => i.amount)).toEqual(['30.00', '-5.00']);
    expect((await admin('get', `/api/v2/admin/coupons/${renewal.id}`)).used).toBe(1);
    // Another user's service: 40400, nothing reserved.
    const stranger = await registerClient(platform);
    expectError(await platform.api.post(`/api/v2/client/services/${serviceId}/renew`, { token: stranger.token, body: { billing_period: 'monthly', coupon_code: renewal.code } }), 40400, 404);
    await expectBooksBalanced(platform);
  });

  it('the withdrawal limits come from the referral settings group', async () => {
    await admin('post', '/api/v2/admin/settings', { values: { 'referral.withdrawal_min': '50.00' } });
    try {
      const client = await registerClient(platform);
      const res = await platform.api.post('/api/v2/client/referral-withdrawals', { token: client.token, body: { amount: '20.00', method: 'balance' } });
      expectError(res, 42200, 422);
      expect(res.body.data.errors.amount[0]).toContain('50.00');
    } finally {
      await admin('post', '/api/v2/admin/settings', { values: { 'referral.withdrawal_min': '10.00' } });
    }
  });
});

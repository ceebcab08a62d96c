import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adjustBalance, balanceOf, createProduct, expectBooksBalanced, registerClient } from '../../../helpers/billing.js';
import { expectError } from '../../../helpers/http.js';
import { daysFromNow, seedService } from '../../../helpers/lifecycle.js';
import { marketingCalls } from '../../../helpers/marketing.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;
let root: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  root = await platform.rootToken();
});
afterAll(() => platform?.close());

const { admin, buy, code, createCoupon, payByBalance } = marketingCalls(() => ({ platform, root }));

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

  it('lists coupons by keyword (a substring of code or name, % and _ taken literally), status and campaign, with their total', async () => {
    const tag = `K${Date.now().toString(36).toUpperCase()}`;
    const byCode = await createCoupon({ code: `${tag}CODE`, name: '按码查找' });
    const byName = await createCoupon({ name: `名称${tag}券` });
    const other = await createCoupon({ name: '无关券' });
    const found = await admin('get', `/api/v2/admin/coupons?keyword=${tag.toLowerCase()}`);
    expect(found.list.map((c: { id: number }) => c.id).sort()).toEqual([byCode.id, byName.id].sort());
    expect(found.total).toBe(2);
    expect((await admin('get', `/api/v2/admin/coupons?keyword=${encodeURIComponent('%')}`)).total).toBe(0);
    const page = await admin('get', `/api/v2/admin/coupons?keyword=${tag}&page_size=1&page=2`);
    expect(page).toMatchObject({ total: 2, page: 2, page_size: 1, list: [expect.anything()] });
    const active = await admin('get', `/api/v2/admin/coupons?keyword=${tag}&status=active`);
    expect(active.total).toBe(2);
    expect((await admin('get', `/api/v2/admin/coupons?keyword=${tag}&status=disabled`)).total).toBe(0);
    expect((await admin('get', '/api/v2/admin/coupons')).list.map((c: { id: number }) => c.id)).toContain(other.id);
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
});

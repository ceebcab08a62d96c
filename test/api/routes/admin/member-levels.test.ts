import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySpendLevels } from '../../../../domain/marketing/member-levels.js';
import { adjustBalance, createProduct, expectBooksBalanced, registerClient } from '../../../helpers/billing.js';
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

const { admin, buy, code, createCoupon, payByBalance, referralOf, registerWithCode } = marketingCalls(() => ({ platform, root }));

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

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../helpers/http.js';
import { adjustBalance, createProduct, expectBooksBalanced, purchase, registerClient } from '../../../helpers/billing.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { eventually } from '../../../helpers/wait.js';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

describe('local stock', () => {
  it('goes down by the instances paid for, and a quote or purchase beyond it is refused', async () => {
    const product = await createProduct(platform, '10.00', { stock_control: true, stock_qty: 3 });
    const client = await registerClient(platform);
    await adjustBalance(platform, client.id, '100.00');
    const quoteTwo = () => platform.api.post(`/api/v2/site/products/${product.id}/quote`, { body: { billing_period: 'monthly', quantity: 2 } });
    expect((await quoteTwo()).body.data.total_amount).toBe('20.00');
    const first = await purchase(platform, client, product.id, { quantity: 2 });
    expect((await platform.deps.db.models.Product.findByPk(product.id))?.stock_qty).toBe(3);
    const paid = await platform.api.post(`/api/v2/client/invoices/${first.id}/pay/balance`, { token: client.token });
    expect(paid.body.code).toBe(0);
    expect((await platform.deps.db.models.Product.findByPk(product.id))?.stock_qty).toBe(1);
    // The sale reaches every API process's catalogue cache through NOTIFY (asynchronously, well
    // within the cache lifetime): the quote made before it is not answered from memory.
    const quote = await eventually(async () => {
      const res = await quoteTwo();
      return res.body.code === 0 ? null : res;
    }, 100);
    expectError(quote, 40902, 409);
    const refused = await platform.api.post('/api/v2/client/invoices', { token: client.token, body: { product_id: product.id, billing_period: 'monthly', quantity: 2 } });
    expectError(refused, 40902, 409);
    await expectBooksBalanced(platform);
  });
});

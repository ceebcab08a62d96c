import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/errors.js';
import { quoteProduct } from '../../../domain/catalogue/quote.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

let platform: TestPlatform;

async function codeOf(run: () => Promise<unknown>): Promise<number> {
  try {
    await run();
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
  return 0;
}

async function product(overrides: Record<string, unknown> = {}, menu: Record<string, unknown> = {}) {
  const { ProductMenu, Product } = platform.deps.db.models;
  const m = await ProductMenu.create({ code: `mnu_${Math.random().toString(36).slice(2, 10)}`, name: '云服务器', product_type: 'cloud_server', ...menu });
  return Product.create({
    first_product_group_id: m.id,
    second_product_group_id: null,
    product_group_id: null,
    name: '入门型',
    product_type: m.product_type,
    service_type_code: m.product_type,
    pricing: { monthly: '19.90' },
    config_options: [],
    ...overrides,
  });
}

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

describe('quoteProduct', () => {
  it('prices a listed product', async () => {
    const p = await product();
    const quote = await quoteProduct(platform.deps, { productId: p.id, billingPeriod: 'monthly', config: {}, quantity: 2 });
    expect(quote).toMatchObject({ product_id: p.id, product_type: 'cloud_server', total_amount: '39.80', currency: 'CNY', quantity: 2 });
  });

  it('answers 40400 for absent, hidden, deleted products and products under a hidden menu', async () => {
    const hidden = await product({ status: 'hidden' });
    const deleted = await product({ deleted_at: new Date() });
    const underHiddenMenu = await product({}, { is_visible: 0 });
    for (const id of [999_999, hidden.id, deleted.id, underHiddenMenu.id]) {
      expect(await codeOf(() => quoteProduct(platform.deps, { productId: id, billingPeriod: 'monthly', config: {}, quantity: 1 }))).toBe(40400);
    }
  });

  it('answers 40902 when stock cannot cover the quantity', async () => {
    const p = await product({ stock_control: true, stock_qty: 1 });
    expect(await codeOf(() => quoteProduct(platform.deps, { productId: p.id, billingPeriod: 'monthly', config: {}, quantity: 2 }))).toBe(40902);
    expect((await quoteProduct(platform.deps, { productId: p.id, billingPeriod: 'monthly', config: {}, quantity: 1 })).total_amount).toBe('19.90');
  });

  it('answers 40903 for a product of type other without a plugin purchase schema', async () => {
    const p = await product({}, { product_type: 'other' });
    expect(await codeOf(() => quoteProduct(platform.deps, { productId: p.id, billingPeriod: 'monthly', config: {}, quantity: 1 }))).toBe(40903);
  });
});

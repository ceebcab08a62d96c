import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/errors.js';
import { parseConfigOptions } from '../../../domain/catalogue/config-options.js';
import { priceSelection, type PricedProduct } from '../../../domain/catalogue/pricing.js';

function errorsOf(run: () => unknown): Record<string, string[]> {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(42200);
    return ((err as AppError).data as { errors: Record<string, string[]> }).errors;
  }
  throw new Error('expected a validation error');
}

const product: PricedProduct = {
  name: '标准云服务器',
  pricing: { monthly: '0.10', annually: '1.00' },
  config_options: parseConfigOptions([
    { field: 'cpu', name: 'CPU', option_type: 6, sub: [{ id: 1, value: '1', label: '1 核', pricing: { monthly: '0.20' } }, { id: 2, value: '2', label: '2 核', pricing: { monthly: '0.70', annually: '7.00' } }] },
    { field: 'os', name: '操作系统', option_type: 5, sub: [{ id: 10, value: 'c7', label: 'CentOS 7.9', version: 'CentOS^7.9' }, { id: 11, value: 'u22', label: 'Ubuntu 22.04', version: 'Ubuntu^22.04', pricing: { monthly: '0.01' } }] },
    {
      field: 'ip_num',
      name: 'IP 数量',
      option_type: 4,
      qty_minimum: 1,
      qty_maximum: 8,
      unit: '个',
      sub: [
        { id: 1, value: 'tier1', label: '1-4 个', qty_minimum: 1, qty_maximum: 4, pricing: { monthly: '0.03' } },
        { id: 2, value: 'tier2', label: '5-8 个', qty_minimum: 5, qty_maximum: 8, pricing: { monthly: '0.02' } },
      ],
    },
  ]),
};

describe('priceSelection', () => {
  it('adds awkward decimals exactly: 0.10 + 0.20 is 0.30, not 0.30000000000000004', () => {
    const quote = priceSelection(product, { billingPeriod: 'monthly', config: { cpu: 1, ip_num: 0 + 1 }, quantity: 1 });
    expect(quote.lines.map((l) => [l.key, l.amount])).toEqual([
      ['base', '0.10'],
      ['config.cpu', '0.20'],
      ['config.ip_num', '0.03'],
    ]);
    expect(quote.total_amount).toBe('0.33');
  });

  it('prices a quantity option per unit by the tier that contains the quantity, times the instances', () => {
    const quote = priceSelection(product, { billingPeriod: 'monthly', config: { cpu: '2', os: 11, ip_num: '6' }, quantity: 3 });
    expect(quote.config).toEqual({
      cpu: { value: 2, label: 'CPU：2 核' },
      os: { value: 11, label: '操作系统：Ubuntu 22.04' },
      ip_num: { value: 6, label: 'IP 数量：6 个' },
    });
    const ip = quote.lines.find((l) => l.key === 'config.ip_num');
    expect(ip).toEqual({ key: 'config.ip_num', label: 'IP 数量：6 个', unit_amount: '0.12', quantity: 3, amount: '0.36' });
    // (0.10 + 0.70 + 0.01 + 0.12) × 3
    expect(quote.total_amount).toBe('2.79');
  });

  it('takes defaults for options not chosen and leaves unpriced choices out of the lines', () => {
    const quote = priceSelection(product, { billingPeriod: 'annually', config: {}, quantity: 1 });
    expect(quote.config.cpu).toEqual({ value: 1, label: 'CPU：1 核' });
    expect(quote.config.ip_num?.value).toBe(1);
    expect(quote.lines.map((l) => l.key)).toEqual(['base']);
    expect(quote.total_amount).toBe('1.00');
  });

  it('refuses a period the product is not priced in, naming billing_period', () => {
    expect(Object.keys(errorsOf(() => priceSelection(product, { billingPeriod: 'quarterly', config: {}, quantity: 1 })))).toEqual(['billing_period']);
    expect(Object.keys(errorsOf(() => priceSelection(product, { billingPeriod: 'weekly', config: {}, quantity: 1 })))).toEqual(['billing_period']);
  });

  it('refuses bad config values naming the field, and unknown fields', () => {
    const errors = errorsOf(() => priceSelection(product, { billingPeriod: 'monthly', config: { cpu: 99, ip_num: 9, bw: 1 }, quantity: 1 }));
    expect(Object.keys(errors).sort()).toEqual(['config.bw', 'config.cpu', 'config.ip_num']);
    expect(errors['config.ip_num']?.[0]).toContain('1 到 8');
  });

  it('refuses a quantity outside 1..20 and a config that is not an object', () => {
    expect(Object.keys(errorsOf(() => priceSelection(product, { billingPeriod: 'monthly', config: {}, quantity: 0 })))).toEqual(['quantity']);
    expect(Object.keys(errorsOf(() => priceSelection(product, { billingPeriod: 'monthly', config: {}, quantity: 1.5 })))).toEqual(['quantity']);
    expect(Object.keys(errorsOf(() => priceSelection(product, { billingPeriod: 'monthly', config: [1], quantity: 1 })))).toContain('config');
  });

  it('prices a hidden option at its default and refuses choosing it', () => {
    const hidden: PricedProduct = {
      ...product,
      config_options: product.config_options.map((o) => (o.field === 'os' ? { ...o, hidden: true, sub: [...o.sub].reverse() } : o)),
    };
    const quote = priceSelection(hidden, { billingPeriod: 'monthly', config: {}, quantity: 1 });
    expect(quote.config.os).toEqual({ value: 11, label: '操作系统：Ubuntu 22.04' });
    expect(quote.total_amount).toBe('0.34');
    expect(errorsOf(() => priceSelection(hidden, { billingPeriod: 'monthly', config: { os: 10 }, quantity: 1 }))).toEqual({ 'config.os': ['配置项 操作系统 不可选择'] });
  });

  it('totals any number of cent-valued items exactly (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 99_999 }), { minLength: 1, maxLength: 7 }), fc.integer({ min: 1, max: 20 }), (cents, quantity) => {
        const [base = 0, ...rest] = cents;
        const fields = ['cpu', 'memory', 'area', 'os', 'system_disk_size', 'bw'] as const;
        const p: PricedProduct = {
          name: 'p',
          pricing: { monthly: new Decimal(base).div(100).toFixed(2) },
          config_options: parseConfigOptions(
            rest.map((c, i) => ({
              field: fields[i],
              name: fields[i],
              option_type: 1,
              sub: [{ id: 1, value: 'x', ...(fields[i] === 'os' ? { version: 'Linux^1' } : {}), pricing: { monthly: new Decimal(c).div(100).toFixed(2) } }],
            })),
          ),
        };
        const quote = priceSelection(p, { billingPeriod: 'monthly', config: {}, quantity });
        const expected = new Decimal(cents.reduce((a, b) => a + b, 0)).times(quantity).div(100).toFixed(2);
        expect(quote.total_amount).toBe(expected);
      }),
    );
  });
});

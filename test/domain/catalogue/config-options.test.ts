import { describe, expect, it } from 'vitest';
import { type AppError } from '../../../lib/errors.js';
import { groupSystemsByFamily, parseConfigOptions } from '../../../domain/catalogue/config-options.js';
import { parsePricingMap, primaryPrice } from '../../../domain/catalogue/pricing-map.js';

function errorsOf(run: () => unknown): Record<string, string[]> {
  try {
    run();
  } catch (err) {
    expect((err as AppError).code).toBe(42200);
    return ((err as AppError).data as { errors: Record<string, string[]> }).errors;
  }
  throw new Error('expected a validation error');
}

describe('pricing map', () => {
  it('accepts the flat form and writes two-digit strings', () => {
    expect(parsePricingMap({ monthly: '10', annually: 99.9, onetime: '0.5' })).toEqual({ monthly: '10.00', annually: '99.90', onetime: '0.50' });
  });

  it('refuses the nested form and unknown periods instead of reading them as zero', () => {
    const errors = errorsOf(() => parsePricingMap({ monthly: { price: '10.00' }, weekly: '1.00', annually: '-1', quarterly: '1.234' }));
    expect(Object.keys(errors).sort()).toEqual(['pricing.annually', 'pricing.monthly', 'pricing.quarterly', 'pricing.weekly']);
    expect(errors['pricing.monthly']?.[0]).toContain('嵌套');
  });

  it('refuses a pricing that is not an object', () => {
    expect(Object.keys(errorsOf(() => parsePricingMap(['10.00'])))).toEqual(['pricing']);
  });

  it('gives the first priced period as the primary price', () => {
    expect(primaryPrice({ annually: '100.00', quarterly: '30.00' })).toEqual({ billing_period: 'quarterly', amount: '30.00' });
    expect(primaryPrice({})).toBeNull();
  });
});

describe('config options', () => {
  it('refuses an object (such as upstream binding data) in place of the array', () => {
    expect(errorsOf(() => parseConfigOptions({ upstream_product_id: 12, cpu: 2 }))).toHaveProperty('config_options');
  });

  it('requires os versions as <family>^<version> and groups systems by family', () => {
    const errors = errorsOf(() => parseConfigOptions([{ field: 'os', name: '系统', option_type: 5, sub: [{ value: 'x', version: 'CentOS 7' }] }]));
    expect(Object.keys(errors)).toEqual(['config_options.0.sub.0.version']);
    const [os] = parseConfigOptions([
      {
        field: 'os',
        name: '系统',
        option_type: 5,
        sub: [
          { value: 'c7', label: 'CentOS 7.9', version: 'CentOS^7.9' },
          { value: 'u22', label: 'Ubuntu 22.04', version: 'Ubuntu^22.04' },
          { value: 'c8', label: 'CentOS Stream 8', version: 'CentOS^Stream 8' },
        ],
      },
    ]);
    if (!os) throw new Error('no option');
    expect(os.sub.map((s) => s.id)).toEqual([1, 2, 3]);
    expect(groupSystemsByFamily(os)).toEqual([
      { family: 'CentOS', systems: [{ id: 1, label: 'CentOS 7.9', version: '7.9' }, { id: 3, label: 'CentOS Stream 8', version: 'Stream 8' }] },
      { family: 'Ubuntu', systems: [{ id: 2, label: 'Ubuntu 22.04', version: '22.04' }] },
    ]);
  });

  it('reports every problem under its path: unknown field, duplicate field, bad type, duplicate sub id, nested sub pricing', () => {
    const errors = errorsOf(() =>
      parseConfigOptions([
        { field: 'gpu', name: 'GPU', option_type: 1, sub: [] },
        { field: 'cpu', name: 'CPU', option_type: 6, sub: [{ id: 1, value: '1' }, { id: 1, value: '2', pricing: { monthly: { price: 1 } } }] },
        { field: 'cpu', name: 'CPU', option_type: 99, sub: [] },
        { field: 'memory', name: '', option_type: 8, sub: [] },
      ]),
    );
    expect(Object.keys(errors).sort()).toEqual([
      'config_options.0.field',
      'config_options.1.sub.1.id',
      'config_options.1.sub.1.pricing.monthly',
      'config_options.2.option_type',
      'config_options.3.name',
      'config_options.3.sub',
    ]);
  });

  it('requires a usable range on quantity options and normalises hidden', () => {
    expect(Object.keys(errorsOf(() => parseConfigOptions([{ field: 'ip_num', name: 'IP', option_type: 4, qty_minimum: 5, qty_maximum: 2 }])))).toEqual([
      'config_options.0.qty_maximum',
    ]);
    const [ip] = parseConfigOptions([{ field: 'ip_num', name: 'IP', option_type: 4, qty_minimum: 1, qty_maximum: 4, hidden: '1', parameter: 77 }]);
    expect(ip).toMatchObject({ hidden: true, parameter: '77', sub: [], qty_minimum: 1, qty_maximum: 4 });
  });
});

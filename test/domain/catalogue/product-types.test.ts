import { describe, expect, it } from 'vitest';
import { productTypeOptions, resolveTemplates } from '../../../domain/catalogue/product-types.js';
import { PRODUCT_TYPES } from '../../../db/models/catalogue.js';

const plugin = { purchaseSchema: { template: 'vps_form' }, consoleSchema: { template: 'vps_console' } };

describe('product types', () => {
  it('are the 8 fixed types with Chinese labels; only `other` is plugin driven', () => {
    const options = productTypeOptions();
    expect(options.map((o) => o.value)).toEqual([...PRODUCT_TYPES]);
    expect(options).toHaveLength(8);
    for (const o of options) expect(o.label).toMatch(/\p{Script=Han}|CDN/u);
    expect(options.filter((o) => o.is_plugin_driven).map((o) => o.value)).toEqual(['other']);
  });

  it.each([
    ['cloud_server', 'compute', 'compute'],
    ['game_cloud', 'compute_game', 'game_compute'],
    ['cloud_desktop', 'cloud_desktop', 'cloud_desktop'],
    ['bare_metal', 'bare_metal', 'bare_metal'],
    ['cdn', 'cdn', 'cdn'],
    ['physical_machine', 'physical_machine', 'physical_machine'],
    ['web_hosting', 'web_hosting', 'web_hosting'],
  ] as const)('resolve %s to its built-in templates', (type, purchase, consoleTemplate) => {
    expect(resolveTemplates(type, {}, null)).toEqual({
      purchase_template: purchase,
      console_template: consoleTemplate,
      purchasable_online: true,
      console_available: true,
    });
  });

  it('an explicit template on the product wins over the built-in one', () => {
    expect(resolveTemplates('cloud_server', { purchase: 'custom_buy', console: null }, null)).toMatchObject({
      purchase_template: 'custom_buy',
      console_template: 'compute',
    });
  });

  it('`other` uses the upstream plugin schemas, and without them is not purchasable online', () => {
    expect(resolveTemplates('other', {}, plugin)).toEqual({
      purchase_template: 'plugin_schema',
      console_template: 'plugin_schema',
      purchasable_online: true,
      console_available: true,
    });
    expect(resolveTemplates('other', {}, { purchaseSchema: null, consoleSchema: plugin.consoleSchema })).toMatchObject({
      purchase_template: null,
      purchasable_online: false,
      console_available: true,
    });
    expect(resolveTemplates('other', {}, null)).toMatchObject({ purchasable_online: false, console_available: false });
  });
});

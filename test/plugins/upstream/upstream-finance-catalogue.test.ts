import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigOptionItem } from '../../../plugins/upstream/upstream_finance/normalise/config-option.js';
import type { CatalogueGroup } from '../../../plugins/upstream/upstream_finance/normalise/catalogue.js';
import type { ProductConfig } from '../../../plugins/upstream/upstream_finance/normalise/product-config.js';
import { clearAllTokens } from '../../../plugins/upstream/upstream_finance/client/token-cache.js';
import { startUpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/server.js';
import type { UpstreamFinanceSandbox } from '../../../sandbox/upstream-finance/types.js';
import { field, runFinance } from './finance-harness.js';

const TWO_DIGITS = /^\d+\.\d{2}$/;

describe('upstream finance catalogue and product config', () => {
  let sandbox: UpstreamFinanceSandbox;

  beforeAll(async () => {
    clearAllTokens();
    sandbox = await startUpstreamFinanceSandbox();
  });

  afterAll(async () => {
    await sandbox.stop();
    clearAllTokens();
  });

  async function productConfig(pid: number): Promise<ProductConfig> {
    const result = await runFinance(sandbox, 'upstream.product_config', { payload: { pid } });
    expect(result.success, result.message).toBe(true);
    return field<ProductConfig>(result.data, 'product');
  }

  function option(product: ProductConfig, fieldName: string): ConfigOptionItem {
    const found = product.config_options.find((o) => o.field === fieldName);
    if (!found) throw new Error(`option ${fieldName} missing`);
    return found;
  }

  it('normalises the catalogue into groups of products with our product types', async () => {
    const result = await runFinance(sandbox, 'upstream.catalogue');
    expect(result.success).toBe(true);
    const groups = field<CatalogueGroup[]>(result.data, 'groups');
    expect(groups.map((g) => g.name)).toEqual(['云服务器', '裸金属与独立服务器', 'CDN 加速', '虚拟主机']);
    expect(result.data['product_count']).toBe(9);
    const products = groups.flatMap((g) => g.products);
    expect(new Set(products.map((p) => p.product_type))).toEqual(new Set(['cloud_server', 'bare_metal', 'cdn', 'web_hosting']));
    expect(products.find((p) => p.id === 101)).toEqual({
      id: 101,
      name: '香港云服务器 标准型',
      description: '香港 CN2 线路，KVM 架构，SSD 存储',
      upstream_type: 'cloud',
      product_type: 'cloud_server',
      starting_price: { billing_period: 'monthly', amount: '59.00' },
      stock: { controlled: true, qty: 50 },
    });
    expect(products.find((p) => p.id === 302)?.starting_price).toEqual({ billing_period: 'onetime', amount: '120.00' });
  });

  it('maps cycles to our billing periods with two-digit prices and drops hourly and switched-off cycles', async () => {
    const product = await productConfig(101);
    expect(product.pricing).toEqual({ monthly: '59.00', quarterly: '169.00', semiannually: '319.00', annually: '599.00' });
    expect(product.stock).toEqual({ controlled: true, qty: 50 });
    expect(product.product_type).toBe('cloud_server');
    const hosting = await productConfig(402);
    expect(hosting.pricing).toEqual({ annually: '399.00', biennially: '719.00', triennially: '999.00' });
    expect(hosting.stock).toEqual({ controlled: false, qty: 0 });
  });

  it('returns config options as an array of items with our field names', async () => {
    const product = await productConfig(101);
    expect(Array.isArray(product.config_options)).toBe(true);
    expect(product.config_options.map((o) => o.field)).toEqual(['cpu', 'memory', 'system_disk_size', 'bw', 'ip_num', 'area', 'os']);
    expect(product.skipped_options).toEqual([{ upstream_id: 10108, name: '快照数量' }]);
    const cpu = option(product, 'cpu');
    expect(cpu).toMatchObject({ name: 'CPU', option_type: 6, hidden: false, parameter: '10101', unit: '核', qty_minimum: 0, qty_maximum: 0 });
    expect(cpu.sub[1]).toEqual({
      id: 1010102,
      value: '2',
      label: '2核',
      pricing: { monthly: '20.00', quarterly: '60.00', semiannually: '114.00', annually: '204.00' },
    });
    for (const item of product.config_options) {
      for (const sub of item.sub) for (const amount of Object.values(sub.pricing)) expect(amount).toMatch(TWO_DIGITS);
    }
  });

  it('gives operating systems a family^version and areas a code and label', async () => {
    const product = await productConfig(101);
    const os = option(product, 'os');
    expect(os.option_type).toBe(5);
    expect(os.sub.map((s) => s.version)).toEqual([
      'CentOS^7.9 64位',
      'Ubuntu^22.04 LTS 64位',
      'Ubuntu^20.04 LTS 64位',
      'Debian^12 64位',
      'Windows^Server 2019 数据中心版 64位',
      'Windows^Server 2022 数据中心版 64位',
    ]);
    expect(os.sub[0]).toMatchObject({ id: 1010701, value: '1', label: 'CentOS 7.9 64位' });
    expect(new Set(os.sub.map((s) => s.version?.split('^')[0]))).toEqual(new Set(['CentOS', 'Ubuntu', 'Debian', 'Windows']));
    const area = option(product, 'area');
    expect(area.sub.map((s) => [s.value, s.label])).toEqual([
      ['hk', '中国香港'],
      ['sg', '新加坡'],
    ]);
    expect(area.sub[1]?.version).toBeUndefined();
  });

  it('keeps quantity limits on quantity options', async () => {
    const product = await productConfig(201);
    const ipNum = option(product, 'ip_num');
    expect(ipNum).toMatchObject({ option_type: 4, qty_minimum: 1, qty_maximum: 16, unit: '个' });
    expect(ipNum.sub[0]).toMatchObject({ value: '1', qty_minimum: 1, qty_maximum: 16, pricing: { monthly: '30.00', annually: '306.00' } });
    expect(option(product, 'memory')).toMatchObject({ option_type: 9, unit: 'GB' });
  });

  it('refuses a missing pid without calling the upstream', async () => {
    sandbox.control.resetCounters();
    const result = await runFinance(sandbox, 'upstream.product_config', { payload: {} });
    expect(result).toMatchObject({ success: false, message: '参数错误：pid 必须为正整数', data: { error_kind: 'permanent', error_code: 'invalid_input' } });
    expect(sandbox.control.counters().paths).toEqual({});
  });

  it('an unknown product is a permanent failure: product gone', async () => {
    const result = await runFinance(sandbox, 'upstream.product_config', { payload: { pid: 999 } });
    expect(result).toMatchObject({ success: false, message: '上游商品不存在或已下架', data: { error_kind: 'permanent', error_code: 'product_gone', upstream_status: 406 } });
  });
});

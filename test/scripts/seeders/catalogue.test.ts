import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoCatalogue } from '../../../scripts/seeders/catalogue.js';
import { PRODUCT_TYPES } from '../../../db/models/catalogue.js';
import { installFixturePlugin } from '../../helpers/catalogue.js';
import { RESPONSE_LIMIT_ADMIN_TREE, RESPONSE_LIMIT_FIRST_SCREEN } from '../../helpers/limits.js';
import { createPluginsRoot, upstreamFixtureManifest } from '../../helpers/plugin-fixtures.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

const fixtures = createPluginsRoot();
let platform: TestPlatform;

beforeAll(async () => {
  fixtures.write('upstream', 'acme_cloud', upstreamFixtureManifest('acme_cloud'));
  platform = await startTestPlatform({ env: { PLUGINS_DIR: fixtures.root } });
  await installFixturePlugin(platform, 'upstream', 'acme_cloud');
});
afterAll(async () => {
  await platform?.close();
  fixtures.cleanup();
});

async function tableCounts() {
  const [rows] = await platform.deps.db.sequelize.query(
    `SELECT (SELECT count(*) FROM product_menus)::int AS menus, (SELECT count(*) FROM product_groups)::int AS groups,
            (SELECT count(*) FROM product_categories)::int AS categories, (SELECT count(*) FROM products)::int AS products,
            (SELECT count(*) FROM product_upstream_bindings)::int AS bindings, (SELECT count(*) FROM catalogue_audit_logs)::int AS audits,
            (SELECT max(updated_at) FROM products) AS last_update`,
  );
  return rows[0];
}

describe('demo catalogue seeder', () => {
  it('seeds a menu for each of the 8 types, groups, categories and at least 20 products, and a second run changes nothing', async () => {
    const first = await seedDemoCatalogue(platform.deps);
    expect(first.counts.menus).toBe(8);
    expect(first.counts.products).toBeGreaterThanOrEqual(20);
    const after = await tableCounts();
    const again = await seedDemoCatalogue(platform.deps);
    expect(again).toEqual({ created: [], counts: { menus: 0, groups: 0, categories: 0, products: 0 } });
    expect(await tableCounts()).toEqual(after);

    const [types] = await platform.deps.db.sequelize.query('SELECT DISTINCT product_type FROM product_menus ORDER BY 1');
    expect((types as Array<{ product_type: string }>).map((t) => t.product_type)).toEqual([...PRODUCT_TYPES].sort());
    const [mismatched] = await platform.deps.db.sequelize.query(
      'SELECT p.id FROM products p JOIN product_menus m ON m.id = p.first_product_group_id WHERE p.product_type <> m.product_type OR p.service_type_code <> m.product_type',
    );
    expect(mismatched).toEqual([]);
  });

  it('gives products realistic options: cpu, memory, area, os in several families, system disk, bandwidth and ip count', async () => {
    const list = await platform.api.get('/api/v2/site/products', { query: { keyword: '标准型 S2' } });
    expect(list.body.data.total).toBe(1);
    const detail = await platform.api.get(`/api/v2/site/products/${list.body.data.list[0].id}`);
    const fields = detail.body.data.config_options.map((o: { field: string }) => o.field);
    expect(fields).toEqual(['cpu', 'memory', 'area', 'os', 'system_disk_size', 'bw', 'ip_num']);
    expect(detail.body.data.os_families.map((f: { family: string }) => f.family)).toEqual(['CentOS', 'Ubuntu', 'Debian', 'Windows']);
    expect(detail.body.data.pricing).toEqual({ monthly: '59.90', quarterly: '170.72', annually: '610.98' });
  });

  it('binds the demo product of type other to the enabled upstream plugin', async () => {
    const res = await platform.api.get('/api/v2/site/products', { query: { product_type: 'other' } });
    expect(res.body.data.total).toBe(1);
    const detail = await platform.api.get(`/api/v2/site/products/${res.body.data.list[0].id}`);
    expect(detail.body.data).toMatchObject({ plugin_key: 'acme_cloud', provider_key: 'acme_cloud_api', purchase_template: 'plugin_schema', purchasable_online: true });
  });

  it('keeps the admin tree under 70 KB and the home page under 50 KB with the demo catalogue ten times over', async () => {
    for (let copy = 1; copy <= 9; copy += 1) await seedDemoCatalogue(platform.deps, { copy });
    const token = await platform.rootToken();
    const tree = await platform.api.get('/api/v2/admin/product-menus/tree', { token, sizeLimit: RESPONSE_LIMIT_ADMIN_TREE });
    expect(tree.body.data.menus).toHaveLength(80);
    expect(tree.body.data.products).toBeUndefined();
    expect(tree.body.data.groups).toHaveLength(90);
    expect(tree.body.data.categories).toHaveLength(130);
    expect(tree.body.data.menus.reduce((n: number, m: { product_count: number }) => n + m.product_count, 0)).toBe(230);
    const home = await platform.api.get('/api/v2/site/home', { sizeLimit: RESPONSE_LIMIT_FIRST_SCREEN });
    expect(home.body.data.menus).toHaveLength(20);
    expect(home.body.data.featured_products).toHaveLength(8);
    console.log(`tree ${Buffer.byteLength(tree.raw)} B, home ${Buffer.byteLength(home.raw)} B (10x demo)`);
  });
});

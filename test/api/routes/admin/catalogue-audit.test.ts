import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueAdmin } from '../../../helpers/catalogue.js';
import { expectError } from '../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;
let admin: ReturnType<typeof catalogueAdmin>;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.rootToken();
  admin = catalogueAdmin(platform, () => platform.rootToken());
});
afterAll(() => platform?.close());

describe('the catalogue audit list', () => {
  it('pages every admin write, newest first, filtered by entity', async () => {
    const menu = await admin.menu({ name: '云服务器', product_type: 'cloud_server' });
    const product = await admin.product({ name: '审计', first_product_group_id: menu.id });
    for (let i = 1; i <= 6; i += 1) await admin.call('put', `/api/v2/admin/products/${product.id}`, { sort_order: i });
    const detail = await admin.call('get', `/api/v2/admin/products/${product.id}`);
    expect(detail.audit.total).toBe(7);
    expect(detail.audit.entries).toHaveLength(5);
    expect(detail.audit.entries[0].summary).toBe('排序：5 → 6');
    const page2 = await admin.call('get', `${detail.audit.list_path}&page=2&page_size=5`);
    expect(page2).toMatchObject({ total: 7, page: 2, page_size: 5 });
    expect(page2.list.map((e: { action: string }) => e.action)).toEqual(['update', 'create']);
    const all = await admin.call('get', '/api/v2/admin/catalogue-audit-logs?entity_type=menu');
    expect(all.total).toBeGreaterThanOrEqual(1);
    expect(all.list.every((e: { entity_type: string; entity_type_label: string }) => e.entity_type === 'menu' && e.entity_type_label === '一级菜单')).toBe(true);
  });

  it('shows one entry with its old and new values, and refuses an unknown entry or filter', async () => {
    const menu = await admin.menu({ name: '改名前', product_type: 'cdn' });
    await admin.call('put', `/api/v2/admin/product-menus/${menu.id}`, { name: '改名后' });
    const [entry] = (await admin.call('get', `/api/v2/admin/catalogue-audit-logs?entity_type=menu&entity_id=${menu.id}`)).list;
    expect(entry).toMatchObject({ entity_type: 'menu', entity_id: menu.id, action: 'update' });
    const full = await admin.call('get', `/api/v2/admin/catalogue-audit-logs/${entry.id}`);
    expect(full).toMatchObject({ id: entry.id, entity_id: menu.id });
    expect(full.changes).toEqual([{ field: 'name', label: '名称', old: '改名前', new: '改名后' }]);
    expectError(await platform.api.get('/api/v2/admin/catalogue-audit-logs/999999', { token }), 40400, 404);
    const bad = await platform.api.get('/api/v2/admin/catalogue-audit-logs', { token, query: { entity_type: 'spaceship' } });
    expectError(bad, 42200, 422);
    expect(Object.keys(bad.body.data.errors)).toEqual(['entity_type']);
  });
});

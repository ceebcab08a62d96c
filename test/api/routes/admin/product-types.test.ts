import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

describe('product type options', () => {
  it('lists the 8 fixed types for admins', async () => {
    const res = await platform.api.get('/api/v2/admin/product-type-options', { token: await platform.rootToken() });
    expect(res.body.data).toMatchObject({ total: 8, page: 1, page_size: 20 });
    expect(res.body.data.list).toHaveLength(8);
    expect(res.body.data.list[0]).toEqual({ value: 'cloud_server', label: '云服务器', is_plugin_driven: false });
  });

  it('answers the page object and honours page_size on every product type list', async () => {
    const token = await platform.rootToken();
    for (const path of ['/api/v2/admin/product-type-options', '/api/v2/admin/product-types']) {
      const first = await platform.api.get(path, { token, query: { page_size: 3 } });
      expect(Object.keys(first.body.data).sort(), path).toEqual(['list', 'page', 'page_size', 'total']);
      expect(first.body.data).toMatchObject({ total: 8, page: 1, page_size: 3 });
      expect(first.body.data.list).toHaveLength(3);
      const last = await platform.api.get(path, { token, query: { page: 3, page_size: 3 } });
      expect(last.body.data.list.map((t: { value: string }) => t.value)).toHaveLength(2);
    }
  });

  it('has no route that creates a product type', async () => {
    const res = await platform.api.post('/api/v2/admin/product-type-options', { token: await platform.rootToken(), body: { value: 'x' } });
    expect(res.body.code).toBe(40500);
  });
});

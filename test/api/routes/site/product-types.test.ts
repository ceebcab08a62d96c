import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

describe('site product types', () => {
  it('lists the same types on the public site without a token, paged', async () => {
    const res = await platform.api.get('/api/v2/site/product-types');
    expect(res.body.data).toMatchObject({ total: 8, page: 1, page_size: 20 });
    expect(res.body.data.list.map((t: { value: string }) => t.value)).toContain('web_hosting');
    const last = await platform.api.get('/api/v2/site/product-types', { query: { page: 3, page_size: 3 } });
    expect(Object.keys(last.body.data).sort()).toEqual(['list', 'page', 'page_size', 'total']);
    expect(last.body.data.list).toHaveLength(2);
  });

  it('refuses a bad page size with 42200 naming the field', async () => {
    const res = await platform.api.get('/api/v2/site/product-types', { query: { page_size: 0 } });
    expectError(res, 42200, 422);
    expect(Object.keys(res.body.data.errors)).toEqual(['page_size']);
  });
});

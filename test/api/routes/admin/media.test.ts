import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../helpers/http.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { PNG_1X1, uploadFile, viewLink } from '../../../helpers/uploads.js';

let platform: TestPlatform;
let root: string;

const uploadImage = (bytes: Buffer, name: string) => uploadFile(platform, '/api/v2/admin/content/upload-image', root, bytes, name);
const view = (url: string) => viewLink(platform, url);

beforeAll(async () => {
  platform = await startTestPlatform();
  root = await platform.rootToken();
});

afterAll(async () => {
  await platform?.close();
});

describe('media files', () => {
  it('lists with filters, deletes an unreferenced file (its link then 40400) and refuses a referenced one (40901)', async () => {
    const loose = await uploadImage(PNG_1X1, 'loose-file.png');
    const list = await platform.api.get('/api/v2/admin/media-files', { token: root, query: { keyword: 'loose-file', purpose: 'content', referenced: 'no' } });
    expect(list.body.data.list).toHaveLength(1);
    const item = list.body.data.list[0];
    expect(item).toMatchObject({ asset_id: loose.body.data.asset_id, purpose: 'content', visibility: 'public', references: 0 });
    expect((await platform.api.del(`/api/v2/admin/media-files/${item.id}`, { token: root })).body.code).toBe(0);
    expect((await view(loose.body.data.url)).status).toBe(404);
    expectError(await platform.api.del(`/api/v2/admin/media-files/${item.id}`, { token: root }), 40400, 404);

    const heroImage = await uploadImage(PNG_1X1, 'hero.png');
    await platform.api.post('/api/v2/admin/site/home-hero', { token: root, body: { title: '标题', image_asset_id: heroImage.body.data.asset_id, visible: true } });
    const used = await platform.api.get('/api/v2/admin/media-files', { token: root, query: { referenced: 'yes' } });
    const heroItem = used.body.data.list.find((m: { asset_id: string }) => m.asset_id === heroImage.body.data.asset_id);
    expect(heroItem.references).toBe(1);
    expectError(await platform.api.del(`/api/v2/admin/media-files/${heroItem.id}`, { token: root }), 40901, 409);
    expectError(await platform.api.get('/api/v2/admin/media-files', { token: root, query: { type: 'image/svg+xml' } }), 42200, 422);
  });
});

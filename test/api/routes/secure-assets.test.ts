import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetUrl } from '../../../domain/media/asset-links.js';
import { registerClient, type TestClient } from '../../helpers/billing.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { PNG_1X1, uploadFile, viewLink } from '../../helpers/uploads.js';

let platform: TestPlatform;
let root: string;
let alice: TestClient;

beforeAll(async () => {
  platform = await startTestPlatform();
  root = await platform.rootToken();
  alice = await registerClient(platform);
});
afterAll(() => platform?.close());

const view = (url: string, token?: string) => viewLink(platform, url, token);

describe('signed links to uploads', () => {
  it('serve a public image to anyone and a private attachment to its owner only', async () => {
    const image = await uploadFile(platform, '/api/v2/admin/content/upload-image', root, PNG_1X1, 'a.png');
    const served = await view(image.body.data.url);
    expect(served.status).toBe(200);
    expect(served.bytes.equals(PNG_1X1)).toBe(true);
    expect(served.headers.get('content-type')).toBe('image/png');
    const attachment = await uploadFile(platform, '/api/v2/client/tickets/attachments', alice.token, Buffer.from('错误日志\n'), 'error.log');
    expect((await view(attachment.body.data.url, alice.token)).status).toBe(200);
    const bob = await registerClient(platform);
    const refused = await view(attachment.body.data.url, bob.token);
    expect({ status: refused.status, code: refused.json?.code }).toEqual({ status: 403, code: 40300 });
    expect(refused.json?.message).toMatch(/\p{Script=Han}/u);
  });

  it('refuses a tampered (40300) or expired (41000, HTTP 410) link', async () => {
    const image = await uploadFile(platform, '/api/v2/admin/content/upload-image', root, PNG_1X1, 'a.png');
    const url = new URL(image.body.data.url, platform.baseUrl);
    const tampered = new URL(url);
    tampered.searchParams.set('sig', `${url.searchParams.get('sig')?.slice(0, -2)}AA`);
    const t = await view(`${tampered.pathname}${tampered.search}`);
    expect({ status: t.status, code: t.json?.code }).toEqual({ status: 403, code: 40300 });
    const stretched = new URL(url);
    stretched.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 86_400));
    expect((await view(`${stretched.pathname}${stretched.search}`)).status).toBe(403);
    const otherAsset = new URL(url);
    otherAsset.searchParams.set('asset', 'f'.repeat(32));
    expect((await view(`${otherAsset.pathname}${otherAsset.search}`)).status).toBe(403);

    const expired = await view(assetUrl(platform.deps, image.body.data.asset_id, null, Date.now() - 3 * 3600_000));
    expect({ status: expired.status, code: expired.json?.code }).toEqual({ status: 410, code: 41000 });
    const attachment = await uploadFile(platform, '/api/v2/client/tickets/attachments', alice.token, PNG_1X1, 'b.png');
    const old = assetUrl(platform.deps, attachment.body.data.asset_id, { type: 'user', id: alice.id }, Date.now() - 3600_000);
    expect((await view(old, alice.token)).status).toBe(410);
    // A link to a private file that is signed as public is not enough.
    expect((await view(assetUrl(platform.deps, attachment.body.data.asset_id, null))).status).toBe(403);
    // Malformed parameters are a 42200 envelope, never a 5xx.
    const malformed = await view('/api/secure-assets/view?asset=x&expires=abc&sig=y');
    expect({ status: malformed.status, code: malformed.json?.code }).toEqual({ status: 422, code: 42200 });
    expect((await view('/api/secure-assets/view')).status).toBe(422);
  });
});

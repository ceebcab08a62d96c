import { crc32 } from 'node:zlib';
import jpeg from 'jpeg-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectUpload } from '../../../../domain/media/inspect.js';
import { expectError } from '../../../helpers/http.js';
import { registerClient, type TestClient } from '../../../helpers/billing.js';
import { type Articles, createArticles } from '../../../helpers/content.js';
import { startTestPlatform, type TestPlatform } from '../../../helpers/platform.js';
import { PNG_1X1, uploadFile, viewLink } from '../../../helpers/uploads.js';

let platform: TestPlatform;
let root: string;
let alice: TestClient;
let bob: TestClient;

const GIF_1X1 = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
const WEBP_1X1 = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
const JPEG_2X2 = Buffer.from(jpeg.encode({ data: Buffer.alloc(16, 200), width: 2, height: 2 }, 90).data);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<< /Type /Catalog >>endobj\ntrailer<< /Root 1 0 R >>\n%%EOF\n');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(document.cookie)</script></svg>');
const HTML = Buffer.from('<!DOCTYPE html><html><body><script>fetch("/api/v2/client/balance")</script></body></html>');

/** A valid PNG with a text chunk carrying a script: an image to the decoder, a page to a sniffing browser. */
function pngPolyglot(): Buffer {
  const data = Buffer.from('Comment\0<html><script>alert(1)</script></html>', 'latin1');
  const type = Buffer.from('tEXt', 'latin1');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([type, data])));
  return Buffer.concat([PNG_1X1.subarray(0, 33), length, type, data, crc, PNG_1X1.subarray(33)]);
}

const upload = (path: string, token: string, bytes: Buffer, name: string, type?: string) => uploadFile(platform, path, token, bytes, name, type);
const uploadImage = (bytes: Buffer, name: string, type?: string) => upload('/api/v2/admin/content/upload-image', root, bytes, name, type);
const uploadAttachment = (client: TestClient, bytes: Buffer, name: string, type?: string) => upload('/api/v2/client/tickets/attachments', client.token, bytes, name, type);

const view = (url: string, token?: string) => viewLink(platform, url, token);

beforeAll(async () => {
  platform = await startTestPlatform();
  root = await platform.rootToken();
  alice = await registerClient(platform);
  bob = await registerClient(platform);
});

afterAll(async () => {
  await platform?.close();
});

describe('uploads', () => {
  it('takes PNG, JPEG, GIF and WebP images, decided from their bytes, with a checksum and a signed public link', async () => {
    for (const [bytes, mime, name] of [
      [PNG_1X1, 'image/png', 'logo.PNG'],
      [JPEG_2X2, 'image/jpeg', 'photo.jpeg'],
      [GIF_1X1, 'image/gif', '动图.gif'],
      [WEBP_1X1, 'image/webp', 'pic.bin'],
    ] as const) {
      const res = await uploadImage(bytes, name, 'text/html');
      expect(res.body.code, `${name}: ${res.body.message}`).toBe(0);
      expect(res.body.data).toMatchObject({ type: mime, size: bytes.length, width: expect.any(Number), height: expect.any(Number) });
      expect(res.body.data.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(res.body.data.name.endsWith(mime === 'image/jpeg' ? '.jpg' : `.${mime.slice(6)}`)).toBe(true);
      const served = await view(res.body.data.url);
      expect(served.status).toBe(200);
      expect(served.bytes.equals(bytes)).toBe(true);
      expect(served.headers.get('content-type')).toBe(mime);
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      expect(served.headers.get('content-security-policy')).toContain('sandbox');
      expect(served.headers.get('content-disposition')).toMatch(/^inline;/);
    }
  });

  it('refuses SVG, HTML named .png, polyglots, active PDFs and undecodable images (42200), storing nothing', async () => {
    const cases: [Buffer, string, string][] = [
      [SVG, 'icon.svg', 'image/svg+xml'],
      [HTML, 'cat.png', 'image/png'],
      [pngPolyglot(), 'poly.png', 'image/png'],
      [Buffer.concat([GIF_1X1.subarray(0, GIF_1X1.length - 1), Buffer.from('<script>alert(1)</script>'), Buffer.from([0x3b])]), 'poly.gif', 'image/gif'],
      [PNG_1X1.subarray(0, 40), 'broken.png', 'image/png'],
      [Buffer.from('MZ\x90\x00\x03\x00\x00\x00'), 'setup.png', 'image/png'],
    ];
    for (const [bytes, name, type] of cases) {
      expectError({ status: (await uploadImage(bytes, name, type)).status, body: (await uploadImage(bytes, name, type)).body } as never, 42200, 422);
    }
    for (const [bytes, name, type] of [...cases, [Buffer.from('%PDF-1.4\n<< /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >>\n%%EOF'), 'evil.pdf', 'application/pdf'] as [Buffer, string, string]]) {
      const res = await uploadAttachment(alice, bytes, name, type);
      expect({ name, status: res.status, code: res.body.code }).toEqual({ name, status: 422, code: 42200 });
    }
    // The admin image route takes images only.
    expectError((await uploadImage(PDF, 'doc.pdf')) as never, 42200, 422);
    const list = await platform.api.get('/api/v2/admin/media-files', { token: root, query: { keyword: 'poly' } });
    expect(list.body.data.total).toBe(0);
  });

  it('refuses an oversized file (41300), a JSON body (41500) and a form without the file (42200)', async () => {
    const big = Buffer.concat([PNG_1X1.subarray(0, 16), Buffer.alloc(5 * 1024 * 1024)]);
    const res = await uploadImage(big, 'big.png');
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 413, code: 41300 });
    expectError(await platform.api.post('/api/v2/admin/content/upload-image', { token: root, body: { file: PNG_1X1.toString('base64') } }), 41500, 415);
    const form = new FormData();
    form.append('other', 'x');
    const missing = await fetch(`${platform.baseUrl}/api/v2/admin/content/upload-image`, { method: 'POST', headers: { authorization: `Bearer ${root}` }, body: form });
    expect({ status: missing.status, code: ((await missing.json()) as { code: number }).code }).toEqual({ status: 422, code: 42200 });
  });

  it('takes its size limit from the upload settings', async () => {
    const set = await platform.api.post('/api/v2/admin/settings', { token: root, body: { values: { 'upload.image_max_mb': 1 } } });
    expect(set.body.code, set.body.message).toBe(0);
    const mid = Buffer.concat([PNG_1X1.subarray(0, 16), Buffer.alloc(1024 * 1024)]);
    const res = await uploadImage(mid, 'mid.png');
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 413, code: 41300 });
    expectError(await platform.api.post('/api/v2/admin/settings', { token: root, body: { values: { 'upload.image_max_mb': 50 } } }), 42200, 422);
    await platform.api.post('/api/v2/admin/settings', { token: root, body: { values: { 'upload.image_max_mb': null } } });
    // Back to the default (5 MB): the same file is now inspected (and refused as undecodable, 42200).
    expect((await uploadImage(mid, 'mid.png')).body.code).toBe(42200);
  });

  it('takes PDF and UTF-8 text attachments, served as downloads to their owner only', async () => {
    const pdf = await uploadAttachment(alice, PDF, '合同.pdf', 'application/pdf');
    expect(pdf.body.data).toMatchObject({ type: 'application/pdf', name: '合同.pdf' });
    const served = await view(pdf.body.data.url, alice.token);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(served.headers.get('cache-control')).toContain('no-store');
    const text = await uploadAttachment(alice, Buffer.from('错误日志：\nconnection refused\n'), 'error.log');
    expect(text.body.data).toMatchObject({ type: 'text/plain', name: 'error.txt' });
    expect((await view(text.body.data.url, alice.token)).headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect((await view(text.body.data.url, bob.token)).status).toBe(403);
    expect((await view(text.body.data.url)).status).toBe(403);
    expect((await view(text.body.data.url, root)).status).toBe(403);
  });

  it('bounds client uploads per hour (42900)', async () => {
    const carol = await registerClient(platform);
    await platform.deps.db.sequelize.query(
      `INSERT INTO media_files (asset_id, storage_key, original_name, mime, size_bytes, sha256, visibility, purpose, owner_user_id)
       SELECT md5(random()::text), 'aa/' || md5(random()::text) || 'aaaaaaaa', 'x.txt', 'text/plain', 1, repeat('0', 64), 'private', 'ticket', ${carol.id}
         FROM generate_series(1, 30)`,
    );
    const res = await uploadAttachment(carol, Buffer.from('hello\n'), 'a.txt');
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 429, code: 42900 });
    expect((await uploadAttachment(alice, Buffer.from('hello\n'), 'a.txt')).body.code).toBe(0);
  });

  it('inspects bytes, not names: a text file with markup is refused', async () => {
    await expect(inspectUpload(Buffer.from('hello <?xml version="1.0"?>'), ['text/plain'])).rejects.toMatchObject({ code: 42200 });
    await expect(inspectUpload(Buffer.from('纯文本\n'), ['text/plain'])).resolves.toMatchObject({ mime: 'text/plain' });
    await expect(inspectUpload(Buffer.from([0xff, 0xfe, 0x00, 0x41]), ['text/plain'])).rejects.toMatchObject({ code: 42200 });
  });
});

describe('home hero', () => {
  it('refuses a script link, a private attachment as image, and bad fields (42200)', async () => {
    const attachment = await uploadAttachment(alice, PNG_1X1, 'mine.png');
    for (const body of [
      { title: 'x', cta_url: 'javascript:alert(1)', visible: true },
      { title: 'x', cta_url: '//evil.example.com', visible: true },
      { title: 'x', cta_url: 'http://plain.example.com', visible: true },
      { title: 'x', image_asset_id: attachment.body.data.asset_id, visible: true },
      { title: 'x'.repeat(81), visible: true },
      { title: 'x' },
    ]) {
      expectError(await platform.api.post('/api/v2/admin/site/home-hero', { token: root, body }), 42200, 422);
    }
  });
});

describe('notices and help articles', () => {
  let articles: Articles;

  beforeAll(async () => {
    articles = await createArticles(platform, root);
  });

  it('filters, edits and deletes articles; refuses a category of the other kind, a bad time, and deleting a used category', async () => {
    const { noticeCategory, helpCategory, draft } = articles;
    const drafts = await platform.api.get('/api/v2/admin/content/articles', { token: root, query: { kind: 'notice', status: 'draft' } });
    expect(drafts.body.data.list.map((a: { id: number }) => a.id)).toEqual([draft]);
    expectError(await platform.api.put(`/api/v2/admin/content/articles/${draft}`, { token: root, body: { category_id: helpCategory } }), 42200, 422);
    expectError(await platform.api.put(`/api/v2/admin/content/articles/${draft}`, { token: root, body: { published_at: '2026-02-30 00:00:00' } }), 42200, 422);
    expectError(await platform.api.post('/api/v2/admin/content/articles', { token: root, body: { kind: 'faq', title: 'x', body: 'y', status: 'draft' } }), 42200, 422);
    const publishedNow = await platform.api.put(`/api/v2/admin/content/articles/${draft}`, { token: root, body: { status: 'published' } });
    expect(publishedNow.body.data).toMatchObject({ status: 'published', published_at: expect.any(String) });
    expect((await platform.api.get(`/api/v2/site/notices/${draft}`)).body.code).toBe(0);
    expectError(await platform.api.del(`/api/v2/admin/content/categories/${noticeCategory}`, { token: root }), 40901, 409);
    expect((await platform.api.del(`/api/v2/admin/content/articles/${draft}`, { token: root })).body.code).toBe(0);
    expectError(await platform.api.get(`/api/v2/admin/content/articles/${draft}`, { token: root }), 40400, 404);
    expectError(await platform.api.post('/api/v2/admin/content/categories', { token: root, body: { kind: 'notice', name: '系统公告' } }), 42200, 422);
  });
});

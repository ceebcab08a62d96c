import type { TestPlatform } from './platform.js';

/** A 1×1 PNG. */
export const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** A multipart upload of `bytes` as the form's `file` (the upload routes of content and tickets). */
export async function uploadFile(platform: TestPlatform, path: string, token: string, bytes: Buffer, name: string, type = 'application/octet-stream') {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
  const res = await fetch(`${platform.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = (await res.json()) as { code: number; message: string; data: any };
  return { status: res.status, body };
}

/** A GET of a link as a browser would (signed asset links answer bytes, errors answer the envelope). */
export async function viewLink(platform: TestPlatform, url: string, token?: string) {
  const res = await fetch(`${platform.baseUrl}${url}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, json: res.headers.get('content-type')?.includes('application/json') ? JSON.parse(bytes.toString()) : null };
}

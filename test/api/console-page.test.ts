import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
  platform.deps.config.publicBaseUrl = platform.baseUrl;
});
afterAll(() => platform?.close());

describe('the VNC console page', () => {
  it('is served with its own CSP: scripts and styles from this origin, connections to the API and its websocket only', async () => {
    const res = await fetch(`${platform.baseUrl}/console/vnc?token=whatever`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const ws = platform.baseUrl.replace('http', 'ws');
    expect(res.headers.get('content-security-policy')).toBe(
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self' ${platform.baseUrl} ${ws}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    const html = await res.text();
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map(([, attrs, body]) => [/src="([^"]+)"/.exec(attrs ?? '')?.[1], body])).toEqual([['/console/vnc/app.js', '']]);
    expect(html).not.toContain('whatever');
  });

  it('serves its script and noVNC’s modules from node_modules, and nothing else of the package', async () => {
    const app = await fetch(`${platform.baseUrl}/console/vnc/app.js`);
    expect(app.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await app.text()).toContain("import RFB from '/console/novnc/core/rfb.js'");
    for (const path of ['core/rfb.js', 'core/decoders/raw.js', 'vendor/pako/lib/zlib/inflate.js']) {
      const res = await fetch(`${platform.baseUrl}/console/novnc/${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    }
    for (const path of ['package.json', 'core/../package.json', 'core/%2e%2e/package.json', 'docs/API.md', 'vendor/pako/README.md', 'core', '']) {
      const res = await fetch(`${platform.baseUrl}/console/novnc/${path}`);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { code: number }).code).toBe(40400);
    }
  });
});

/** A GET with `Upgrade` headers, as `curl --http2` sends on plain HTTP: status and body. */
function getWithUpgrade(url: string, upgrade: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: body === undefined ? 'GET' : 'POST', headers: { ...upgrade, ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) } });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('upgrade', (res) => resolve({ status: res.statusCode ?? 0, body: '' }));
    req.on('error', reject);
    req.end(body);
  });
}

describe('upgrade requests that are not the console relay', () => {
  it('are answered as ordinary requests (curl --http2 asks for h2c on every plain-HTTP call)', async () => {
    const h2c = await getWithUpgrade(`${platform.baseUrl}/api/health`, { connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': 'AAMAAABkAAQCAAAAAAIAAAAA' });
    expect(h2c.status).toBe(200);
    expect(JSON.parse(h2c.body)).toMatchObject({ code: 0 });
    const websocket = await getWithUpgrade(`${platform.baseUrl}/api/v2/site/config`, {
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'sec-websocket-version': '13',
    });
    expect(websocket.status).toBe(200);
    const missing = await getWithUpgrade(`${platform.baseUrl}/api/v2/nothing`, { connection: 'Upgrade', upgrade: 'h2c' });
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ code: 40400 });
    // Node has already cut the body off such a request: refused, never served without it.
    const withBody = await getWithUpgrade(`${platform.baseUrl}/api/v2/client/login`, { connection: 'Upgrade', upgrade: 'h2c' }, '{"account":"a"}');
    expect(withBody.status).toBe(400);
    expect(JSON.parse(withBody.body)).toMatchObject({ code: 40000, message: '请求格式不正确' });
  });
});

import { request } from 'node:http';
import { Writable } from 'node:stream';
import { expect } from 'vitest';
import { createLogger } from '../../lib/logger.js';
import type { TestPlatform } from './platform.js';

export type OpenedConsole = { token: string; console_url: string; expires_in: number };
export type RedeemedConsole = { service_id: number; relay_token: string; relay_expires_in: number; websocket_url: string };

/** `POST …/services/{id}/vnc` as the client: the public console token. */
export async function openConsole(platform: TestPlatform, token: string, serviceId: number): Promise<OpenedConsole> {
  const res = await platform.api.post(`/api/v2/client/services/${serviceId}/vnc`, { token });
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data as OpenedConsole;
}

/** `GET /api/v2/client/vnc-tokens/{token}` (open), as the console page calls it. */
export async function redeemConsole(platform: TestPlatform, publicToken: string): Promise<RedeemedConsole> {
  const res = await platform.api.get(`/api/v2/client/vnc-tokens/${publicToken}`);
  expect(res.body.code, res.body.message).toBe(0);
  return res.body.data as RedeemedConsole;
}

export function relayUrl(redeemed: RedeemedConsole): string {
  return `${redeemed.websocket_url}?token=${redeemed.relay_token}`;
}

/**
 * A GET from another local address (127.0.0.2 is loopback too on Linux): the API sees a
 * different client address, as if the token had been copied to another machine.
 */
export function getFrom(localAddress: string, url: string): Promise<{ status: number; body: { code: number; message: string } }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress, headers: { accept: 'application/json' } }, (res) => {
      let raw = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (raw += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(raw) as { code: number; message: string } }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every log line of the platform from now on, at trace level, redaction as in production. */
export function captureLogs(platform: TestPlatform): string[] {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  platform.deps.logger = createLogger('trace', 'capture', sink);
  return lines;
}

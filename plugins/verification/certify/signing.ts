import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** hex HMAC-SHA256 over `METHOD\npath\ntimestamp\nnonce\nbody` (path with query, Unix seconds). */
export function sign(secret: string, parts: { method: string; path: string; timestamp: string; nonce: string; body: string }): string {
  const text = [parts.method.toUpperCase(), parts.path, parts.timestamp, parts.nonce, parts.body].join('\n');
  return createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

export function requestHeaders(appId: string, secret: string, method: string, path: string, body: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(16).toString('hex');
  return {
    'Content-Type': 'application/json',
    'X-App-Id': appId,
    'X-Timestamp': timestamp,
    'X-Nonce': nonce,
    'X-Signature': sign(secret, { method, path, timestamp, nonce, body }),
  };
}

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The certify provider's request signature (sandbox definition, shared by requests to the
 * provider and by its callbacks): hex HMAC-SHA256 with the app secret over
 * `METHOD\npath\ntimestamp\nnonce\nbody`, where `path` includes the query string, `timestamp`
 * is Unix seconds and `body` is the exact request text ('' for none).
 */
export type SignatureParts = { method: string; path: string; timestamp: string; nonce: string; body: string };

export const CLOCK_WINDOW_SECONDS = 300;

export function canonicalString(parts: SignatureParts): string {
  return [parts.method.toUpperCase(), parts.path, parts.timestamp, parts.nonce, parts.body].join('\n');
}

export function computeSignature(secret: string, parts: SignatureParts): string {
  return createHmac('sha256', secret).update(canonicalString(parts), 'utf8').digest('hex');
}

export function signaturesEqual(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

export type SignedHeaders = { 'X-App-Id': string; 'X-Timestamp': string; 'X-Nonce': string; 'X-Signature': string };

/** Headers for one signed request or callback; `nowSeconds` and `nonce` may be forced (tests). */
export function signedHeaders(
  appId: string,
  secret: string,
  request: { method: string; path: string; body: string },
  options: { nowSeconds?: number; nonce?: string } = {},
): SignedHeaders {
  const timestamp = String(options.nowSeconds ?? Math.floor(Date.now() / 1000));
  const nonce = options.nonce ?? randomBytes(16).toString('hex');
  const signature = computeSignature(secret, { ...request, timestamp, nonce });
  return { 'X-App-Id': appId, 'X-Timestamp': timestamp, 'X-Nonce': nonce, 'X-Signature': signature };
}

import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The SMS gateway's request signature (sandbox definition): every body parameter except
 * `signature`, empty values dropped, keys sorted ascending by code unit, joined as
 * `encodeURIComponent(k)=encodeURIComponent(v)` with `&`; hex HMAC-SHA256 with the access key
 * secret. `timestamp` is Unix seconds (±300 s), `nonce` is single use.
 */
export function stringToSign(params: Record<string, string>): string {
  return Object.keys(params)
    .filter((k) => k !== 'signature' && params[k] !== undefined && params[k] !== '')
    .sort()
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(params[k] ?? '')}`)
    .join('&');
}

export function signParams(secret: string, params: Record<string, string>): string {
  return createHmac('sha256', secret).update(stringToSign(params), 'utf8').digest('hex');
}

export function signaturesEqual(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

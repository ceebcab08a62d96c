import { createHmac } from 'node:crypto';

/**
 * hex HMAC-SHA256 with the access key secret over the parameters except `signature`, empty
 * values dropped, keys sorted ascending, `encodeURIComponent(k)=encodeURIComponent(v)` joined by `&`.
 */
export function signParams(secret: string, params: Record<string, string>): string {
  const text = Object.keys(params)
    .filter((k) => k !== 'signature' && params[k] !== '')
    .sort()
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(params[k] ?? '')}`)
    .join('&');
  return createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}

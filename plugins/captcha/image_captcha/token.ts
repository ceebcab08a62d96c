import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A stateless captcha id: `base64url(JSON{ h, e, n }).base64url(HMAC)`, where `h` is the
 * HMAC of the lower-cased answer with the nonce, `e` the expiry (Unix seconds) and `n` a
 * random nonce. Without the signing key neither the answer nor a new id can be derived.
 */
export type TokenClaims = { hash: string; expiresAt: number; nonce: string };

function mac(key: string, label: string, value: string): string {
  return createHmac('sha256', key).update(`image_captcha:${label}\n${value}`, 'utf8').digest('base64url');
}

export function normaliseAnswer(answer: string): string {
  return answer.trim().toLowerCase();
}

export function answerHash(key: string, nonce: string, answer: string): string {
  return mac(key, 'answer', `${nonce}\n${normaliseAnswer(answer)}`);
}

export function equalStrings(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

export function issueToken(key: string, answer: string, expiresAt: number): { token: string; nonce: string } {
  const nonce = randomBytes(12).toString('base64url');
  const payload = Buffer.from(JSON.stringify({ h: answerHash(key, nonce, answer), e: expiresAt, n: nonce }), 'utf8').toString('base64url');
  return { token: `${payload}.${mac(key, 'token', payload)}`, nonce };
}

/** The claims of a well-formed token signed with `key`, or null. */
export function readToken(key: string, token: string): TokenClaims | null {
  const parts = token.split('.');
  if (parts.length !== 2) return null;
  const [payload = '', signature = ''] = parts;
  if (!equalStrings(mac(key, 'token', payload), signature)) return null;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (typeof claims !== 'object' || claims === null) return null;
    const { h, e, n } = claims as Record<string, unknown>;
    if (typeof h !== 'string' || typeof e !== 'number' || typeof n !== 'string') return null;
    return { hash: h, expiresAt: e, nonce: n };
  } catch {
    return null;
  }
}

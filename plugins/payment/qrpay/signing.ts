/**
 * The qrpay gateway's signing rules (docs: qrpay-and-certify.md, "Signing"), merchant side. The
 * sandbox gateway checks them with its own code (`sandbox/qrpay/signing.ts`), never this file.
 *
 * - String to sign: every parameter except `sign` (and `sign_type` for notifications), empty
 *   values dropped, keys sorted ascending by UTF-8 byte value, `k=v` joined with `&`, values raw.
 * - Signature: SHA256withRSA (RSA2, PKCS#1 v1.5), base64.
 * - An answer is signed over the exact JSON text of its `..._response` member.
 */
import { createPrivateKey, createPublicKey, sign as cryptoSign, verify as cryptoVerify, type KeyObject } from 'node:crypto';

export type SignableParams = Readonly<Record<string, string | null | undefined>>;

export type BuildSignStringOptions = {
  /** Notifications: `sign_type` is not signed either. */
  excludeSignType?: boolean;
};

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function buildSignString(params: SignableParams, options: BuildSignStringOptions = {}): string {
  const keys = Object.keys(params).filter((key) => {
    if (key === 'sign') return false;
    if (options.excludeSignType && key === 'sign_type') return false;
    const value = params[key];
    return value !== undefined && value !== null && value !== '';
  });
  keys.sort(compareBytes);
  return keys.map((key) => `${key}=${params[key] ?? ''}`).join('&');
}

/** Normalises a configured key: a PEM text, or the bare base64 body the gateway consoles show. */
function keyBody(text: string): { pem: string | null; der: Buffer | null } {
  const trimmed = text.replace(/\\n/g, '\n').trim();
  if (trimmed.includes('-----BEGIN')) return { pem: trimmed, der: null };
  const compact = trimmed.replace(/\s+/g, '');
  if (compact.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return { pem: null, der: null };
  return { pem: null, der: Buffer.from(compact, 'base64') };
}

export function loadPrivateKey(text: string): KeyObject {
  const { pem, der } = keyBody(text);
  if (pem) return createPrivateKey(pem);
  if (!der) throw new Error('private key is neither PEM nor base64 DER');
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } catch {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs1' });
  }
}

export function loadPublicKey(text: string): KeyObject {
  const { pem, der } = keyBody(text);
  if (pem) return createPublicKey(pem);
  if (!der) throw new Error('public key is neither PEM nor base64 DER');
  try {
    return createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch {
    return createPublicKey({ key: der, format: 'der', type: 'pkcs1' });
  }
}

/** SHA256withRSA over the UTF-8 bytes of `content`; base64. Throws when the key is unusable. */
export function sign(content: string, privateKey: string | KeyObject): string {
  const key = typeof privateKey === 'string' ? loadPrivateKey(privateKey) : privateKey;
  if (key.asymmetricKeyType !== 'rsa') throw new Error('RSA2 needs an RSA key');
  return cryptoSign('sha256', Buffer.from(content, 'utf8'), key).toString('base64');
}

/** True only for a valid SHA256withRSA signature; never throws (bad key or base64 → false). */
export function verify(content: string, signature: string, publicKey: string | KeyObject): boolean {
  try {
    if (signature.length === 0 || !/^[A-Za-z0-9+/\s]+={0,2}$/.test(signature)) return false;
    const key = typeof publicKey === 'string' ? loadPublicKey(publicKey) : publicKey;
    if (key.asymmetricKeyType !== 'rsa') return false;
    return cryptoVerify('sha256', Buffer.from(content, 'utf8'), key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** `qrpay.trade.query` → `qrpay_trade_query_response`. */
export function responseMemberName(method: string): string {
  return `${method.replace(/\./g, '_')}_response`;
}

function skipWhitespace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return i;
}

/** Index just past the JSON string starting at `i` (which is a quote). */
function skipString(text: string, i: number): number {
  i++;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '\\') i += 2;
    else if (ch === '"') return i + 1;
    else i++;
  }
  throw new Error('unterminated string');
}

/** Index just past the JSON value starting at `i`. */
function skipValue(text: string, i: number): number {
  const first = text[i];
  if (first === '"') return skipString(text, i);
  if (first === '{' || first === '[') {
    let depth = 0;
    while (i < text.length) {
      const ch = text[i];
      if (ch === '"') {
        i = skipString(text, i);
        continue;
      }
      if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    throw new Error('unterminated value');
  }
  while (i < text.length && !/[,}\]\s]/.test(text[i] ?? '')) i++;
  return i;
}

/**
 * The exact source text of a top-level member's value in a JSON object text (what an answer's
 * signature covers), or null when the text is not a JSON object or lacks the member.
 */
export function extractJsonMember(json: string, member: string): string | null {
  try {
    JSON.parse(json);
  } catch {
    return null;
  }
  let i = skipWhitespace(json, 0);
  if (json[i] !== '{') return null;
  i = skipWhitespace(json, i + 1);
  while (i < json.length && json[i] !== '}') {
    if (json[i] !== '"') return null;
    const keyEnd = skipString(json, i);
    const key: unknown = JSON.parse(json.slice(i, keyEnd));
    i = skipWhitespace(json, keyEnd);
    if (json[i] !== ':') return null;
    const valueStart = skipWhitespace(json, i + 1);
    const valueEnd = skipValue(json, valueStart);
    if (key === member) return json.slice(valueStart, valueEnd);
    i = skipWhitespace(json, valueEnd);
    if (json[i] === ',') i = skipWhitespace(json, i + 1);
  }
  return null;
}

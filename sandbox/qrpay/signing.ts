import { createPublicKey, createSign, createVerify, type KeyObject } from 'node:crypto';

/**
 * The QR gateway's own signing rules (docs: qrpay-and-certify.md, "Signing"), written here and
 * not borrowed from the payment plugin: a gateway that shared the merchant's signing code would
 * agree with any bug in it. Deliberately spelled differently from the plugin (streaming
 * `createSign('RSA-SHA256')`, byte-buffer sort) so that only the rules are shared.
 *
 * - Content: every parameter except `sign` (and `sign_type` for notifications), empty values
 *   dropped, keys in ascending UTF-8 byte order, `k=v` joined with `&`, values raw.
 * - RSA2: SHA256withRSA (PKCS#1 v1.5) over the UTF-8 bytes, base64.
 * - An answer is signed over the exact JSON text of its `<method with _>_response` member.
 */
type Fields = Readonly<Record<string, string | undefined>>;

function signContent(fields: Fields, excluded: ReadonlySet<string>): string {
  const pairs: { key: Buffer; line: string }[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (excluded.has(key) || value === undefined || value === '') continue;
    pairs.push({ key: Buffer.from(key, 'utf8'), line: `${key}=${value}` });
  }
  pairs.sort((a, b) => Buffer.compare(a.key, b.key));
  return pairs.map((pair) => pair.line).join('&');
}

const REQUEST_EXCLUDED: ReadonlySet<string> = new Set(['sign']);
const NOTIFICATION_EXCLUDED: ReadonlySet<string> = new Set(['sign', 'sign_type']);

/** What a merchant's request signature covers (`sign_type` included). */
export function requestSignContent(params: Fields): string {
  return signContent(params, REQUEST_EXCLUDED);
}

/** What the gateway's notification signature covers (`sign_type` left out). */
export function notificationSignContent(fields: Fields): string {
  return signContent(fields, NOTIFICATION_EXCLUDED);
}

export function rsa2Sign(content: string, privateKey: KeyObject): string {
  return createSign('RSA-SHA256').update(content, 'utf8').sign(privateKey, 'base64');
}

/** True only for a valid RSA2 signature; a malformed signature is simply not valid. */
export function rsa2Verify(content: string, signature: string, publicKey: KeyObject): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return false;
  try {
    return createVerify('RSA-SHA256').update(content, 'utf8').verify(publicKey, signature, 'base64');
  } catch {
    return false;
  }
}

/** `qrpay.trade.query` → `qrpay_trade_query_response`. */
export function answerMember(method: string): string {
  return `${method.split('.').join('_')}_response`;
}

/**
 * The merchant's public key as registered with the gateway: a PEM text, or the bare base64
 * SPKI body that gateway consoles take.
 */
export function publicKeyFromText(text: string): KeyObject {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) return createPublicKey(trimmed);
  return createPublicKey({ key: Buffer.from(trimmed.replace(/\s+/g, ''), 'base64'), format: 'der', type: 'spki' });
}

import { createHmac, randomInt } from 'node:crypto';
import { deriveKey } from '../../../lib/crypto.js';

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789';

function randomAlnum(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALNUM[randomInt(ALNUM.length)];
  return out;
}

/**
 * The 32-character token of a downstream reference (letters and digits, as the upstream expects),
 * derived from the service (its id, its invoice, the instant it was created) under the app's key:
 * the same service always gets the same token, so a platform restored to an instant before its
 * token was stored asks the upstream again with the same reference and gets the order it already
 * placed (docs/production.md "After a restore"). A service created later with a reused id has
 * another invoice and creation instant, so another token.
 */
export function downstreamTokenFor(secretKey: string, service: { id: number; invoiceNo: string; createdMicros: string }): string {
  return createHmac('sha256', deriveKey(secretKey, 'downstream-token')).update(`${service.id}\n${service.invoiceNo}\n${service.createdMicros}`).digest('hex').slice(0, 32);
}

/** A root password the upstream accepts (8–32 letters and digits) with every character class. */
export function newServicePassword(): string {
  const classes = ['ABCDEFGHJKLMNPQRSTUVWXYZ', 'abcdefghijkmnpqrstuvwxyz', '23456789'];
  const chars = [...randomAlnum(13), ...classes.map((c) => c[randomInt(c.length)] as string)];
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j] as string, chars[i] as string];
  }
  return chars.join('');
}

export type DownstreamReference = { token: string; url: string; service_id: number };

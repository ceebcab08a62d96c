import { createHmac } from 'node:crypto';
import { deriveKey } from '../../lib/crypto.js';
import type { DomainDeps } from '../deps.js';

const WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const CHECK_CHARS = '10X98765432';

/** An 18-character resident ID number (GB 11643: 17 digits and a check character), upper-cased; null when malformed. */
export function normaliseIdNumber(raw: string): string | null {
  const value = raw.trim().toUpperCase();
  if (!/^\d{17}[\dX]$/.test(value)) return null;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(value[i]) * (WEIGHTS[i] as number);
  return CHECK_CHARS[sum % 11] === value[17] ? value : null;
}

/** A real name: 2 to 32 characters (Chinese names, or names with a middle dot), trimmed; null otherwise. */
export function normaliseName(raw: string): string | null {
  const value = raw.trim().replace(/\s+/g, ' ');
  const chars = Array.from(value);
  if (chars.length < 2 || chars.length > 32) return null;
  return /^[\p{L}·• ]+$/u.test(value) ? value : null;
}

/** `张*`, `欧阳**`: the first character only. */
export function maskName(name: string): string {
  const chars = Array.from(name);
  return `${chars[0] ?? ''}${'*'.repeat(Math.max(1, chars.length - 1))}`;
}

/** `1101**********1234`: the first four and last four characters. */
export function maskIdNumber(idNumber: string): string {
  return `${idNumber.slice(0, 4)}${'*'.repeat(Math.max(0, idNumber.length - 8))}${idNumber.slice(-4)}`;
}

/**
 * A keyed hash of the ID number (HMAC-SHA256 with a key derived from APP_SECRET_KEY): the same
 * person gives the same hash, so it can be UNIQUE among verified users, and it cannot be
 * reversed by hashing every possible ID number without the key.
 */
export function identityHash(deps: Pick<DomainDeps, 'config'>, idNumber: string): string {
  return createHmac('sha256', deriveKey(deps.config.secretKey, 'identity-hash')).update(idNumber, 'utf8').digest('hex');
}

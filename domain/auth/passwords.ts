import { type Algorithm, hash, verify } from '@node-rs/argon2';
import { constantTimeEqual, md5Hex } from '../../lib/crypto.js';

// Algorithm.Argon2id; the package declares it as an ambient const enum.
const ARGON2ID = 2 as Algorithm;

const LEGACY_PATTERN = /^###([0-9a-f]{32})$/i;

/** Strong hash for every stored password: argon2id with the library's recommended cost. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

export function isLegacyHash(stored: string): boolean {
  return LEGACY_PATTERN.test(stored);
}

/** Accepts argon2id hashes and the legacy `###` + MD5 form (spec: Authentication 5). */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  const legacy = LEGACY_PATTERN.exec(stored);
  if (legacy?.[1]) return constantTimeEqual(legacy[1].toLowerCase(), md5Hex(password));
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

// A fixed hash verified when the account does not exist, so both paths cost the same.
let decoyHash: Promise<string> | null = null;
export async function verifyDecoy(password: string): Promise<void> {
  decoyHash ??= hashPassword('decoy-password-never-matches');
  await verifyPassword(await decoyHash, password);
}

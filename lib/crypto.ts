import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

const VERSION = 'v1';

/** Derives an independent 32-byte key for one purpose from APP_SECRET_KEY. */
export function deriveKey(secretKey: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secretKey, 'utf8'), Buffer.alloc(0), `platform:${purpose}`, 32));
}

/** AES-256-GCM box for secrets at rest (plugin secrets, supplier keys, sensitive settings). */
export type SecretBox = {
  seal(plaintext: string): string;
  open(sealed: string): string;
};

export function createSecretBox(secretKey: string): SecretBox {
  const key = deriveKey(secretKey, 'secret-box');
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    },
    open(sealed) {
      const [version, payload] = sealed.split(':', 2);
      if (version !== VERSION || !payload) throw new Error('unsupported sealed value');
      const raw = Buffer.from(payload, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * A mask that never equals the original: shows at most a quarter of the characters and never
 * more than four in all (the first half of them from the start, the rest from the end).
 */
export function maskSecret(value: string): string {
  if (value.length === 0) return '';
  const shown = Math.min(4, Math.floor(value.length / 4));
  const head = Math.ceil(shown / 2);
  const tail = shown - head;
  return `${value.slice(0, head)}${'*'.repeat(Math.max(4, value.length - shown))}${tail > 0 ? value.slice(-tail) : ''}`;
}

export function randomToken(bytes = 16): string {
  return randomBytes(bytes).toString('hex');
}

/**
 * SHA-256 of a high-entropy token, as stored instead of the token (challenge, verification and
 * console tokens): a database read gives nobody a usable token. Never for passwords (argon2).
 */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export function md5Hex(value: string): string {
  return createHash('md5').update(value, 'utf8').digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

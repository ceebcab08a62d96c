/**
 * Redaction of values kept in the database for people to read later (the admin audit's request
 * fields, before and after images): secrets, passwords, tokens, verification codes and identity
 * numbers never stay. Keys that name a secret lose their value; a string that looks like a
 * resident ID number is masked wherever it appears. Bounded: depth, items and text are cut, so a
 * hostile body cannot grow a row.
 */
const SECRET_KEY =
  /(pass(word|wd)?$|password|secret|token|api_?key|private_?key|access_?key|(^|[._-])key$|(^|[._-])auth$|authorization|cookie|credential|signature|^sign$|id_?number|id_?card|identity_?no|verify_?code|verification_?code|sms_?code|email_?code|captcha|otp$|otpauth|recovery_?codes?|^qr_url$|^pin$|cvv|card_?no)/i;

/** 18-digit resident ID numbers (last may be X), alone or inside text. */
const ID_NUMBER = /(?<![0-9A-Za-z])(\d{6})\d{8}(\d{3}[\dXx])(?![0-9A-Za-z])/g;

export const REDACTED = '[REDACTED]';

const MAX_DEPTH = 6;
const MAX_ITEMS = 50;
const MAX_TEXT = 500;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

export function maskIdNumbers(text: string): string {
  return text.replace(ID_NUMBER, (_m, head: string) => `${head.slice(0, 3)}***************`);
}

export function redactValue(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return value ?? null;
  if (typeof value === 'string') {
    const masked = maskIdNumbers(value);
    return masked.length > MAX_TEXT ? `${masked.slice(0, MAX_TEXT)}…` : masked;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((item) => redactValue(item, depth + 1));
    if (value.length > MAX_ITEMS) items.push(`…(${value.length - MAX_ITEMS} more)`);
    return items;
  }
  if (typeof value === 'object') {
    // Built from entries (own data properties): a key named `__proto__` stays a key, never the prototype.
    const entries: [string, unknown][] = [];
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (entries.length >= MAX_ITEMS) {
        entries.push(['…', 'more fields']);
        break;
      }
      entries.push([key, isSecretKey(key) ? REDACTED : redactValue(child, depth + 1)]);
    }
    return Object.fromEntries(entries);
  }
  return String(value);
}

/** The redacted value, or a marker when even that is larger than `maxBytes` of JSON. */
export function redactBounded(value: unknown, maxBytes = 16_384): unknown {
  const redacted = redactValue(value);
  const size = Buffer.byteLength(JSON.stringify(redacted) ?? 'null');
  return size > maxBytes ? { truncated: true, bytes: size } : redacted;
}

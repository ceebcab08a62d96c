/**
 * What PostgreSQL refuses in text and jsonb values: the NUL character (`\u0000`) and UTF-16
 * surrogates without their pair (`\ud800` alone). A log row holding one would be refused, and
 * with it every row of the same statement. Both are replaced by their escape written out as
 * text (`\u0000` becomes the six characters `\`, `u`, `0`, `0`, `0`, `0`), so the stored row
 * still shows what was sent. A literal `\u0000` text sent as such reads the same: the log is
 * for people, not for replaying the request.
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for.
const REFUSED = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function pgSafeText(text: string): string {
  REFUSED.lastIndex = 0;
  if (!REFUSED.test(text)) return text;
  return text.replace(REFUSED, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `pgSafeText` applied to every string of a JSON-like value, object keys included. */
export function pgSafe<T>(value: T): T {
  if (typeof value === 'string') return pgSafeText(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => pgSafe(item)) as T;
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [pgSafeText(key), pgSafe(item)])) as T;
  }
  return value;
}

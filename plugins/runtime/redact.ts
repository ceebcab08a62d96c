const SENSITIVE_EXACT = new Set([
  'password',
  'passwd',
  'pwd',
  'secret',
  'key',
  'token',
  'sign',
  'signature',
  'private_key',
  'id_number',
  'authorization',
  'cookie',
  'jwt',
  'api_key',
  'apikey',
]);
const SENSITIVE_PART = /(password|secret|token|private_key|id_number|_key$|_sign$|^sign_|_token$)/;

export const REDACTED = '[REDACTED]';
export const SUMMARY_MAX_LENGTH = 2000;

export function isSensitiveKey(key: string): boolean {
  const k = key.toLowerCase();
  return SENSITIVE_EXACT.has(k) || SENSITIVE_PART.test(k);
}

function walk(value: unknown, depth: number): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? String(value) : value;
  if (depth > 6) return '[…]';
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => walk(v, depth + 1));
  // From entries (own data properties): a key named `__proto__` stays a key, never the prototype.
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isSensitiveKey(k) ? REDACTED : walk(v, depth + 1)]));
}

/**
 * A log-safe summary: sensitive keys censored at any depth, every occurrence of a known secret
 * value (raw or JSON-escaped) replaced, then truncated.
 */
export function redactSummary(value: unknown, secretValues: readonly string[], maxLength = SUMMARY_MAX_LENGTH): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(walk(value, 0)) ?? '');
  } catch {
    text = '[无法序列化]';
  }
  const secrets = [...new Set(secretValues.filter((s) => s !== ''))].sort((a, b) => b.length - a.length);
  for (const secret of secrets) {
    for (const form of new Set([secret, JSON.stringify(secret).slice(1, -1)])) text = text.split(form).join(REDACTED);
  }
  return text.length > maxLength ? `${text.slice(0, maxLength)}…(已截断)` : text;
}

function flatten(value: unknown, depth: number, maxDepth: number): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? String(value) : value;
  if (depth >= maxDepth) return JSON.stringify(walk(value, depth)) ?? '';
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => flatten(v, depth + 1, maxDepth));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isSensitiveKey(k) ? REDACTED : flatten(v, depth + 1, maxDepth)]));
}

/**
 * A stored, structured summary (a task's summary array or object): sensitive keys censored,
 * known secret values replaced, containers deeper than `maxDepth` turned into JSON text so the
 * admin detail stays within the nesting limit, and anything too large cut to an excerpt.
 */
export function redactJson(value: unknown, secretValues: readonly string[], maxDepth = 2, maxLength = 8000): Record<string, unknown> | unknown[] {
  const shaped = flatten(value, 0, maxDepth);
  const container = shaped !== null && typeof shaped === 'object' ? shaped : { value: shaped };
  const text = redactSummary(container, secretValues, Number.MAX_SAFE_INTEGER);
  if (text.length > maxLength) return { truncated: true, excerpt: text.slice(0, 2000) };
  try {
    return JSON.parse(text) as Record<string, unknown> | unknown[];
  } catch {
    return { excerpt: text.slice(0, 2000) };
  }
}

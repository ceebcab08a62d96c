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
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = isSensitiveKey(k) ? REDACTED : walk(v, depth + 1);
  return out;
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

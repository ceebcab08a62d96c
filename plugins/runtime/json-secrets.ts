import { maskSecret, type SecretBox } from '../../lib/crypto.js';
import type { ConfigFieldDefinition } from './contract.js';
import { fieldLabel } from './config-fields.js';

export type SecretItems = Array<Record<string, string>>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const hasFlag = (secretKey: string) => `has_${secretKey}`;

/** The stored secrets of a `secret_keys` field, per index. */
export function openSecretItems(sealed: string | undefined, box: SecretBox): SecretItems {
  if (!sealed) return [];
  const parsed = JSON.parse(box.open(sealed)) as unknown;
  return Array.isArray(parsed) ? parsed.map((p) => (isRecord(p) ? (p as Record<string, string>) : {})) : [];
}

export type SplitResult = { ok: true; items: Record<string, unknown>[]; secrets: SecretItems } | { ok: false; error: string };

/**
 * A submitted array of objects split into its public part and its secrets. For each item and
 * secret key, an empty value or the masked preview keeps the secret stored at the same index;
 * anything else replaces it. The `has_<key>` flags of the preview are dropped.
 */
export function splitSecretItems(key: string, field: ConfigFieldDefinition, submitted: unknown, previous: SecretItems): SplitResult {
  const label = fieldLabel(key, field);
  const secretKeys = field.secret_keys ?? [];
  if (!Array.isArray(submitted) || !submitted.every(isRecord)) return { ok: false, error: `${label}必须是对象数组` };
  const items: Record<string, unknown>[] = [];
  const secrets: SecretItems = [];
  for (const [index, item] of submitted.entries()) {
    // From entries (own data properties): a submitted key named `__proto__` stays a key, never the prototype.
    const publicItem: Record<string, unknown> = Object.fromEntries(
      Object.entries(item).filter(([k]) => !secretKeys.includes(k) && !secretKeys.some((s) => k === hasFlag(s))),
    );
    const secretItem: Record<string, string> = {};
    for (const secretKey of secretKeys) {
      const value = item[secretKey];
      const old = previous[index]?.[secretKey];
      const keep = value === undefined || value === null || value === '' || (old !== undefined && value === maskSecret(old));
      if (keep) {
        if (old !== undefined) secretItem[secretKey] = old;
      } else if (typeof value !== 'string') {
        return { ok: false, error: `${label}第 ${index + 1} 项的 ${secretKey} 必须是文本` };
      } else {
        secretItem[secretKey] = value;
      }
    }
    items.push(publicItem);
    secrets.push(secretItem);
  }
  return { ok: true, items, secrets };
}

/** For the admin form: each secret replaced by its mask (never the original) plus a `has_<key>` flag. */
export function previewSecretItems(field: ConfigFieldDefinition, items: unknown, secrets: SecretItems): unknown {
  if (!Array.isArray(items)) return items;
  return items.map((item, index) => {
    const copy: Record<string, unknown> = isRecord(item) ? { ...item } : {};
    for (const secretKey of field.secret_keys ?? []) {
      const value = secrets[index]?.[secretKey];
      copy[secretKey] = value ? maskSecret(value) : '';
      copy[hasFlag(secretKey)] = Boolean(value);
    }
    return copy;
  });
}

/** For the plugin: the public items with their secrets put back. */
export function mergeSecretItems(items: unknown, secrets: SecretItems): unknown {
  if (!Array.isArray(items)) return items;
  return items.map((item, index) => ({ ...(isRecord(item) ? item : {}), ...(secrets[index] ?? {}) }));
}

import { asRecord, type UnknownRecord } from '../read.js';

export type FlatRecord = Record<string, string | number | boolean | null>;

/** Keys whose values never leave the plugin (passwords, tokens, keys). */
const SECRET_KEY = /pass|secret|token|jwt|key$|auth/i;

export const MODULE_ITEMS_MAX = 100;

/**
 * Custom module answers are module-specific: only their scalar fields pass (no nesting, no
 * secrets, strings cut at 255 characters).
 */
export function flattenModuleRecord(value: unknown): FlatRecord {
  const raw: UnknownRecord = asRecord(value) ?? {};
  const flat: FlatRecord = {};
  for (const [key, field] of Object.entries(raw)) {
    if (SECRET_KEY.test(key) || !/^[A-Za-z0-9_]{1,64}$/.test(key)) continue;
    if (typeof field === 'string') flat[key] = field.slice(0, 255);
    else if ((typeof field === 'number' && Number.isFinite(field)) || typeof field === 'boolean' || field === null) flat[key] = field;
  }
  return flat;
}

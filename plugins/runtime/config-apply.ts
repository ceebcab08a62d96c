import { type FieldErrors, validationError } from '../../lib/errors.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { ConfigFieldDefinition } from './contract.js';
import { hasSecretKeys, isDisplayOnly, isEmptyValue, isSecretField } from './config-fields.js';
import { coerceFieldValue } from './coerce-value.js';
import { openSecretItems, splitSecretItems } from './json-secrets.js';
import { missingRequired, type StoredConfig } from './required-check.js';

export type ApplyConfigInput = {
  fields: Record<string, ConfigFieldDefinition>;
  stored: StoredConfig;
  submitted: Record<string, unknown>;
  secretBox: SecretBox;
  /** An enabled plugin must keep every required field filled. */
  requireAll: boolean;
};

/**
 * Applies a configuration form to the stored values. Submitted keys replace stored ones, absent
 * keys keep theirs; display-only fields are ignored; an empty value clears a plain field and
 * keeps a secret. Secrets are sealed into `secrets`; `config` holds plain values only. Any
 * invalid value fails the whole submission with 42200 and a Chinese reason per field.
 */
export function applyConfig(input: ApplyConfigInput): StoredConfig {
  const { fields, submitted, secretBox } = input;
  const config = { ...input.stored.config };
  const secrets = { ...input.stored.secrets };
  const errors: FieldErrors = {};
  for (const [key, raw] of Object.entries(submitted)) {
    const field = fields[key];
    if (!field) {
      errors[key] = ['该配置项不存在'];
      continue;
    }
    if (isDisplayOnly(field)) continue;
    if (hasSecretKeys(field)) {
      if (isEmptyValue(raw)) {
        delete config[key];
        delete secrets[key];
        continue;
      }
      const parsed = coerceFieldValue(key, field, raw);
      const split = parsed.ok ? splitSecretItems(key, field, parsed.value, openSecretItems(secrets[key], secretBox)) : parsed;
      if (!split.ok) errors[key] = [split.error];
      else {
        config[key] = split.items;
        secrets[key] = secretBox.seal(JSON.stringify(split.secrets));
      }
      continue;
    }
    if (isEmptyValue(raw)) {
      if (!isSecretField(field)) delete config[key];
      continue;
    }
    const coerced = coerceFieldValue(key, field, raw);
    if (!coerced.ok) errors[key] = [coerced.error];
    else if (isSecretField(field)) {
      secrets[key] = secretBox.seal(typeof coerced.value === 'string' ? coerced.value : JSON.stringify(coerced.value));
    } else config[key] = coerced.value;
  }
  if (Object.keys(errors).length === 0) {
    Object.assign(errors, missingRequired(fields, { config, secrets }, 'save'));
    if (input.requireAll) Object.assign(errors, missingRequired(fields, { config, secrets }, 'enable'));
  }
  if (Object.keys(errors).length > 0) throw validationError(errors, '插件配置校验失败');
  return { config, secrets };
}

/** Initial plain values at install: each saved, non-secret field's `value` or `default`. */
export function initialConfig(fields: Record<string, ConfigFieldDefinition>): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields)) {
    if (isDisplayOnly(field) || isSecretField(field) || hasSecretKeys(field)) continue;
    const initial = field.value ?? field.default;
    if (isEmptyValue(initial)) continue;
    const coerced = coerceFieldValue(key, field, initial);
    if (coerced.ok) config[key] = coerced.value;
  }
  return config;
}

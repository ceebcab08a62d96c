import type { SecretBox } from '../../lib/crypto.js';
import type { ConfigFieldDefinition } from './contract.js';
import { fieldLabel, hasSecretKeys, isDisplayOnly, isEmptyValue, isSecretField, optionList } from './config-fields.js';
import { openSecretItems, previewSecretItems } from './json-secrets.js';
import { fieldHasValue, type StoredConfig } from './required-check.js';

export type ConfigFieldView = {
  key: string;
  type: string;
  label: string;
  required: boolean;
  secret: boolean;
  has_value: boolean;
  value: unknown;
  options: Record<string, string> | null;
  placeholder: string | null;
  description: string | null;
  width: 'full' | 'half';
  disabled: boolean;
  visible: boolean;
  group: string | null;
  rules: { max: number | null; pattern: string | null; message: string | null } | null;
  visible_when_field: string | null;
  visible_when_operator: string | null;
  visible_when_value: unknown;
  secret_keys: string[] | null;
};

const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

function currentValue(key: string, field: ConfigFieldDefinition, stored: StoredConfig, box: SecretBox): unknown {
  if (isDisplayOnly(field)) {
    const shown = field.value ?? field.default;
    return shown === undefined || shown === null ? null : typeof shown === 'object' ? asText(shown) : shown;
  }
  if (isSecretField(field)) return '';
  const value = stored.config[key];
  if (field.type !== 'json') return value ?? null;
  if (isEmptyValue(value)) return '';
  // JSON is edited as text; this also keeps the answer within the nesting limit.
  return asText(hasSecretKeys(field) ? previewSecretItems(field, value, openSecretItems(stored.secrets[key], box)) : value);
}

/**
 * The configuration form for the admin: every declared field with its current value. A secret
 * is never returned: its value is empty and `has_value` tells whether one is stored; the items
 * of a `secret_keys` field carry a masked preview. Options are given as a value → label map.
 */
export function configView(fields: Record<string, ConfigFieldDefinition>, stored: StoredConfig, box: SecretBox): ConfigFieldView[] {
  return Object.entries(fields).map(([key, field]) => ({
    key,
    type: field.type,
    label: fieldLabel(key, field),
    required: field.required === true,
    secret: isSecretField(field),
    has_value: isDisplayOnly(field) ? false : fieldHasValue(key, field, stored),
    value: currentValue(key, field, stored, box),
    options: field.options ? Object.fromEntries(optionList(field).map((o) => [String(o.value), o.label])) : null,
    placeholder: field.placeholder ?? null,
    description: field.description ?? null,
    width: field.width ?? 'full',
    disabled: field.disabled === true,
    visible: field.visible !== false,
    group: field.group ?? null,
    rules: field.rules
      ? { max: field.rules.max ?? null, pattern: field.rules.pattern ?? null, message: field.rules.message ?? null }
      : null,
    visible_when_field: field.visible_when?.field ?? null,
    visible_when_operator: field.visible_when?.operator ?? null,
    visible_when_value: field.visible_when?.value ?? null,
    secret_keys: field.secret_keys ?? null,
  }));
}

/** Whether any secret of the plugin is stored (`has_secret_values` of the detail). */
export function hasSecretValues(stored: StoredConfig): boolean {
  return Object.values(stored.secrets).some((v) => typeof v === 'string' && v !== '');
}

import {
  type ConfigFieldDefinition,
  type ConfigOption,
  DISPLAY_ONLY_FIELD_TYPES,
} from './contract.js';

/** Types whose value is a string and may be declared `secret: true` (`password` always is). */
export const SECRET_CAPABLE_TYPES: readonly string[] = ['text', 'textarea', 'password', 'url', 'email', 'phone', 'json'];
export const OPTION_TYPES: readonly string[] = ['select', 'radio', 'multi_select', 'checkbox'];
export const MULTI_OPTION_TYPES: readonly string[] = ['multi_select', 'checkbox'];

export function fieldLabel(key: string, field: ConfigFieldDefinition): string {
  return field.title ?? field.label ?? key;
}

export function isDisplayOnly(field: ConfigFieldDefinition): boolean {
  return (DISPLAY_ONLY_FIELD_TYPES as readonly string[]).includes(field.type);
}

/** A whole-value secret: `type=password`, or a string type with `secret=true`. */
export function isSecretField(field: ConfigFieldDefinition): boolean {
  return field.type === 'password' || (field.secret === true && SECRET_CAPABLE_TYPES.includes(field.type));
}

/** A `json` array of objects whose `secret_keys` are secrets (multi-account SMTP). */
export function hasSecretKeys(field: ConfigFieldDefinition): boolean {
  return field.type === 'json' && !isSecretField(field) && Array.isArray(field.secret_keys) && field.secret_keys.length > 0;
}

/** Options in label/value pair form, whichever form the manifest used. */
export function optionList(field: ConfigFieldDefinition): ConfigOption[] {
  if (Array.isArray(field.options)) return field.options;
  if (field.options && typeof field.options === 'object') {
    return Object.entries(field.options).map(([value, label]) => ({ value, label }));
  }
  return [];
}

/** Saved fields only: display-only types are never stored. */
export function storedFields(fields: Record<string, ConfigFieldDefinition>): [string, ConfigFieldDefinition][] {
  return Object.entries(fields).filter(([, f]) => !isDisplayOnly(f));
}

export function isEmptyValue(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

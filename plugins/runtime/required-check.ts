import type { FieldErrors } from '../../lib/errors.js';
import type { ConfigFieldDefinition } from './contract.js';
import { fieldLabel, isEmptyValue, isSecretField, storedFields } from './config-fields.js';
import { isFieldShown, visibleWhenHolds } from './visible-when.js';

export type StoredConfig = { config: Record<string, unknown>; secrets: Record<string, string> };

export function fieldHasValue(key: string, field: ConfigFieldDefinition, stored: StoredConfig): boolean {
  if (isSecretField(field)) return typeof stored.secrets[key] === 'string' && stored.secrets[key] !== '';
  return !isEmptyValue(stored.config[key]);
}

/**
 * Required fields without a value. On save only the fields shown in the form count; to enable
 * (and while enabled) every required field whose `visible_when` holds must be filled.
 */
export function missingRequired(
  fields: Record<string, ConfigFieldDefinition>,
  stored: StoredConfig,
  mode: 'save' | 'enable',
): FieldErrors {
  const errors: FieldErrors = {};
  for (const [key, field] of storedFields(fields)) {
    if (!field.required) continue;
    const applies = mode === 'save' ? isFieldShown(field, stored.config) : visibleWhenHolds(field, stored.config);
    if (applies && !fieldHasValue(key, field, stored)) errors[key] = [`请填写${fieldLabel(key, field)}`];
  }
  return errors;
}

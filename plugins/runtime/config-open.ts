import type { SecretBox } from '../../lib/crypto.js';
import type { ConfigFieldDefinition } from './contract.js';
import { hasSecretKeys, isSecretField } from './config-fields.js';
import { mergeSecretItems, openSecretItems } from './json-secrets.js';
import type { StoredConfig } from './required-check.js';

export type OpenedConfig = {
  /** Plain and secret values together, as the plugin receives them. */
  config: Record<string, unknown>;
  /** Every secret string, so summaries can redact each occurrence. */
  secretValues: string[];
};

/** Decrypts a plugin's stored configuration for an invocation. Never log the result. */
export function openConfig(fields: Record<string, ConfigFieldDefinition>, stored: StoredConfig, box: SecretBox): OpenedConfig {
  const config: Record<string, unknown> = { ...stored.config };
  const secretValues: string[] = [];
  for (const [key, field] of Object.entries(fields)) {
    const sealed = stored.secrets[key];
    if (!sealed) continue;
    if (hasSecretKeys(field)) {
      const items = openSecretItems(sealed, box);
      for (const item of items) secretValues.push(...Object.values(item));
      config[key] = mergeSecretItems(stored.config[key], items);
    } else if (isSecretField(field)) {
      const plain = box.open(sealed);
      secretValues.push(plain);
      config[key] = field.type === 'json' ? (JSON.parse(plain) as unknown) : plain;
    }
  }
  return { config, secretValues: secretValues.filter((v) => v !== '') };
}

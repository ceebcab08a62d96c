import type { z } from 'zod';
import type { AppConfig } from '../../lib/config.js';

/** A value an admin may change; its schema validates every save, its default applies while unset. */
export type PlainSettingDef<T> = {
  label: string;
  description?: string;
  schema: z.ZodType<T>;
  /** A value, or derived from the start-up configuration (an environment variable's value). */
  default: T | ((config: AppConfig) => T);
  secret?: false;
};

/**
 * A secret (a key, a token, a password): stored sealed, never answered (admins see
 * `has_value` and a mask), kept when a save sends an empty string. Unset reads as ''.
 */
export type SecretSettingDef = {
  label: string;
  description?: string;
  secret: true;
  /** Validates a new non-empty value; strings up to 500 characters by default. */
  schema?: z.ZodType<string>;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a group mixes value types
export type SettingDef = PlainSettingDef<any> | SecretSettingDef;
export type SettingDefs = Record<string, SettingDef>;

type ValueOf<D> = D extends SecretSettingDef ? string : D extends PlainSettingDef<infer T> ? T : never;

export type SettingValues<D extends SettingDefs> = { [K in keyof D]: ValueOf<D[K]> };

export type SettingGroup<D extends SettingDefs = SettingDefs> = {
  /** The first half of every stored key (`<name>.<key>`). */
  name: string;
  label: string;
  defs: D;
};

const NAME = /^[a-z][a-z0-9_]*$/;

/**
 * Declares one group of settings; its area owns the file (`domain/settings/groups/<name>.ts`) and
 * reads it with `readSettings(deps, group)`. Names are lower snake case: they are stored keys.
 */
export function settingGroup<const D extends SettingDefs>(name: string, label: string, defs: D): SettingGroup<D> {
  if (!NAME.test(name)) throw new Error(`invalid setting group name: ${name}`);
  for (const key of Object.keys(defs)) if (!NAME.test(key)) throw new Error(`invalid setting key: ${name}.${key}`);
  return { name, label, defs };
}

export function isSecret(def: SettingDef): def is SecretSettingDef {
  return def.secret === true;
}

export function defaultOf(def: SettingDef, config: AppConfig): unknown {
  if (isSecret(def)) return '';
  return typeof def.default === 'function' ? (def.default as (c: AppConfig) => unknown)(config) : def.default;
}

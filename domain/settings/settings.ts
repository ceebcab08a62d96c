import { z } from 'zod';
import { validationError } from '../../lib/errors.js';
import { maskSecret } from '../../lib/crypto.js';
import { offerAuditRequest } from '../../lib/request-context.js';
import { inTransaction, sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { defaultOf, isSecret, type SettingDef, type SettingDefs, type SettingGroup, type SettingValues } from './define.js';
import { CATALOGUE_CHANNEL } from '../catalogue/catalogue-cache.js';
import { siteSettings } from './groups/site.js';
import { SETTING_GROUPS } from './registry.js';
import { SETTINGS_CHANNEL, type StoredSetting } from './settings-cache.js';

const DEFAULT_SECRET_SCHEMA = z.string().min(1).max(500);

async function loadRows(deps: DomainDeps): Promise<Map<string, StoredSetting>> {
  const cache = deps.settingsCache;
  const held = cache?.get();
  if (held) return held;
  const ticket = cache?.ticket() ?? 0;
  const rows = await sqlRows<StoredSetting>(deps, 'SELECT key, value, sealed_value FROM settings', []);
  const map = new Map(rows.map((r) => [r.key, r]));
  cache?.set(ticket, map);
  return map;
}

/**
 * The current value of a stored row for its definition: secrets unsealed, plain values checked
 * against today's schema (a value saved under an older, looser schema falls back to the
 * default, with a warning, rather than reaching code that no longer expects it).
 */
function valueOf(deps: DomainDeps, fullKey: string, def: SettingDef, row: StoredSetting | undefined): unknown {
  if (!row) return defaultOf(def, deps.config);
  if (isSecret(def)) {
    if (row.sealed_value === null) return '';
    try {
      return deps.secretBox.open(row.sealed_value);
    } catch {
      deps.logger.warn({ key: fullKey }, 'setting could not be unsealed (APP_SECRET_KEY changed?); treated as unset');
      return '';
    }
  }
  const parsed = def.schema.safeParse(row.value);
  if (parsed.success) return parsed.data;
  deps.logger.warn({ key: fullKey }, 'stored setting no longer valid; default used');
  return defaultOf(def, deps.config);
}

/** One group's values (defaults where unset, secrets in clear: server-side use only). */
export async function readSettings<D extends SettingDefs>(deps: DomainDeps, group: SettingGroup<D>): Promise<SettingValues<D>> {
  const rows = await loadRows(deps);
  const out: Record<string, unknown> = {};
  for (const [key, def] of Object.entries(group.defs)) {
    const full = `${group.name}.${key}`;
    out[key] = valueOf(deps, full, def, rows.get(full));
  }
  return out as SettingValues<D>;
}

/** What an admin sees of one key: a secret's `value` is always '' (with `has_value` and a mask). */
export type SettingView = {
  key: string;
  group: string;
  label: string;
  description: string | null;
  secret: boolean;
  value: unknown;
  has_value: boolean;
  masked_value: string | null;
  is_default: boolean;
  updated_at: Date | null;
};

type ViewRow = StoredSetting & { updated_at: Date };

function findDef(fullKey: string): { group: SettingGroup; key: string; def: SettingDef } | undefined {
  const dot = fullKey.indexOf('.');
  if (dot < 0) return undefined;
  const group = SETTING_GROUPS.find((g) => g.name === fullKey.slice(0, dot));
  const key = fullKey.slice(dot + 1);
  const def = group && Object.hasOwn(group.defs, key) ? group.defs[key] : undefined;
  return group && def ? { group, key, def } : undefined;
}

/** A mask that is never the secret itself, whatever the secret is. */
function trueMask(secret: string): string {
  const mask = maskSecret(secret);
  return mask === secret ? `${mask}*` : mask;
}

/** Every declared key (optionally one group's) with its current state, for the admin page. */
export async function listSettings(deps: DomainDeps, filter: { group?: string | undefined } = {}): Promise<SettingView[]> {
  const stored = await sqlRows<ViewRow>(deps, 'SELECT key, value, sealed_value, updated_at FROM settings', []);
  const rows = new Map(stored.map((r) => [r.key, r]));
  const views: SettingView[] = [];
  for (const group of SETTING_GROUPS) {
    if (filter.group !== undefined && group.name !== filter.group) continue;
    for (const [key, def] of Object.entries(group.defs)) {
      const full = `${group.name}.${key}`;
      const row = rows.get(full);
      const secret = isSecret(def);
      const current = valueOf(deps, full, def, row);
      views.push({
        key: full,
        group: group.name,
        label: def.label,
        description: def.description ?? null,
        secret,
        value: secret ? '' : current,
        has_value: secret ? current !== '' : row !== undefined,
        masked_value: secret && current !== '' ? trueMask(String(current)) : null,
        is_default: row === undefined,
        updated_at: row?.updated_at ?? null,
      });
    }
  }
  return views;
}

/** One key's change as recorded for the audit: never a secret's value. */
export type SettingChange = { key: string; secret: boolean; old?: unknown; new?: unknown };

type Planned = { key: string; secret: boolean; reset: boolean; value: unknown; sealed: string | null };

/**
 * Saves several keys at once, all or nothing. Each value is checked by its key's schema first
 * (an unknown key, a bad value: 42200 naming `values.<key>`, nothing saved). A secret sent as ''
 * keeps its stored value; a plain value sent as null returns the key to its default. The rows
 * and the invalidation notice commit together; answers what changed (secrets without values).
 */
export async function saveSettings(deps: DomainDeps, adminId: number | null, values: Record<string, unknown>): Promise<SettingChange[]> {
  // The audit keeps the request without the secrets' values (their key names do not say so).
  offerAuditRequest({
    values: Object.fromEntries(Object.entries(values).map(([key, value]) => {
      const def = findDef(key)?.def;
      return [key, def && isSecret(def) ? (value === '' ? '' : '[REDACTED]') : value];
    })),
  });
  const errors: Record<string, string[]> = {};
  const planned: Planned[] = [];
  for (const [fullKey, raw] of Object.entries(values)) {
    const field = `values.${fullKey}`;
    const found = findDef(fullKey);
    if (!found) {
      errors[field] = ['未知的设置项'];
      continue;
    }
    const { def } = found;
    if (isSecret(def)) {
      if (typeof raw !== 'string') {
        errors[field] = ['类型不正确，应为字符串'];
        continue;
      }
      if (raw === '') continue;
      const parsed = (def.schema ?? DEFAULT_SECRET_SCHEMA).safeParse(raw);
      if (!parsed.success) {
        errors[field] = parsed.error.issues.map((i) => i.message);
        continue;
      }
      planned.push({ key: fullKey, secret: true, reset: false, value: null, sealed: deps.secretBox.seal(parsed.data) });
      continue;
    }
    if (raw === null) {
      planned.push({ key: fullKey, secret: false, reset: true, value: null, sealed: null });
      continue;
    }
    const parsed = def.schema.safeParse(raw);
    if (!parsed.success) {
      errors[field] = parsed.error.issues.map((i) => i.message);
      continue;
    }
    planned.push({ key: fullKey, secret: false, reset: false, value: parsed.data, sealed: null });
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
  if (planned.length === 0) return [];

  const changes = await inTransaction(deps, async (tx) => {
    const keys = planned.map((p) => p.key);
    const before = await sqlRows<StoredSetting>(deps, 'SELECT key, value, sealed_value FROM settings WHERE key = ANY($1) FOR UPDATE', [keys], tx);
    const old = new Map(before.map((r) => [r.key, r]));
    const done: SettingChange[] = [];
    for (const p of planned) {
      const prior = old.get(p.key);
      const found = findDef(p.key);
      if (!found) continue;
      if (p.reset) {
        if (!prior) continue;
        await sqlRows(deps, 'DELETE FROM settings WHERE key = $1', [p.key], tx);
        done.push({ key: p.key, secret: false, old: prior.value, new: defaultOf(found.def, deps.config) });
        continue;
      }
      if (!p.secret && prior && JSON.stringify(prior.value) === JSON.stringify(p.value)) continue;
      await sqlRows(
        deps,
        `INSERT INTO settings (key, value, sealed_value, updated_by_admin_id, updated_at)
         VALUES ($1, $2::jsonb, $3, $4, now())
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, sealed_value = EXCLUDED.sealed_value,
           updated_by_admin_id = EXCLUDED.updated_by_admin_id, updated_at = now()`,
        [p.key, p.secret ? null : JSON.stringify(p.value), p.sealed, adminId],
        tx,
      );
      done.push(
        p.secret
          ? { key: p.key, secret: true }
          : { key: p.key, secret: false, old: prior ? prior.value : defaultOf(found.def, deps.config), new: p.value },
      );
    }
    if (done.length > 0) await sqlRows(deps, 'SELECT pg_notify($1, $2)', [SETTINGS_CHANNEL, ''], tx);
    // The storefront's cached answers (config, home) show the site group: they go with it.
    if (done.some((d) => d.key.startsWith(`${siteSettings.name}.`))) await sqlRows(deps, 'SELECT pg_notify($1, $2)', [CATALOGUE_CHANNEL, '{}'], tx);
    return done;
  });
  if (changes.length > 0) deps.settingsCache?.invalidate();
  if (changes.some((d) => d.key.startsWith(`${siteSettings.name}.`))) deps.catalogueCache?.invalidate();
  return changes;
}

/** The names and labels of every group (the admin page's tabs). */
export function settingGroups(): { name: string; label: string }[] {
  return SETTING_GROUPS.map((g) => ({ name: g.name, label: g.label }));
}

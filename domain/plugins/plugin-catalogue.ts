import { notFound } from '../../lib/errors.js';
import type { PluginRow, PluginStatus } from '../../db/models/plugin.js';
import { PLUGIN_DOMAINS, type PluginDomain } from '../../plugins/runtime/contract.js';
import { hasSecretValues } from '../../plugins/runtime/config-view.js';
import { pluginsRoot } from '../../plugins/runtime/plugins-root.js';
import { scanPlugins } from '../../plugins/runtime/scan.js';
import type { DomainDeps } from '../deps.js';

export type PluginListStatus = 'recognised' | PluginStatus;

export type PluginListItem = {
  id: number | null;
  domain: PluginDomain;
  slug: string;
  key: string | null;
  name: string;
  version: string | null;
  status: PluginListStatus;
  description: string | null;
  capabilities: string[];
  error: string | null;
  has_secret_values: boolean;
  installed_at: Date | null;
  enabled_at: Date | null;
};

export type PluginListQuery = { page: number; page_size: number; domain?: PluginDomain | undefined; status?: PluginListStatus | undefined };

function installedItem(row: PluginRow): PluginListItem {
  return {
    id: row.id,
    domain: row.domain,
    slug: row.slug,
    key: row.key,
    name: row.name,
    version: row.version,
    status: row.status,
    description: row.manifest.info.description ?? null,
    capabilities: row.manifest.info.capabilities ?? [],
    error: null,
    has_secret_values: hasSecretValues({ config: row.config, secrets: row.secrets }),
    installed_at: row.installed_at,
    enabled_at: row.enabled_at ?? null,
  };
}

/**
 * Installed plugins and the folders a scan recognises but nobody installed yet (status
 * `recognised`, no id). Plugins are few, so the merged list is filtered and paged in memory.
 */
export async function listPlugins(deps: DomainDeps, query: PluginListQuery) {
  const rows = await deps.db.models.Plugin.findAll();
  const installed = new Set(rows.map((r) => `${r.domain}/${r.slug}`));
  const scanned = (await scanPlugins(pluginsRoot(deps.config))).filter((s) => !installed.has(`${s.domain}/${s.slug}`));
  const items: PluginListItem[] = [
    ...rows.map(installedItem),
    ...scanned.map((s) => ({
      id: null,
      domain: s.domain,
      slug: s.slug,
      key: s.manifest?.info.key ?? null,
      name: s.manifest?.info.name ?? s.slug,
      version: s.manifest?.info.version ?? null,
      status: 'recognised' as const,
      description: s.manifest?.info.description ?? null,
      capabilities: s.manifest?.info.capabilities ?? [],
      error: s.error,
      has_secret_values: false,
      installed_at: null,
      enabled_at: null,
    })),
  ]
    .filter((i) => (!query.domain || i.domain === query.domain) && (!query.status || i.status === query.status))
    .sort((a, b) => PLUGIN_DOMAINS.indexOf(a.domain) - PLUGIN_DOMAINS.indexOf(b.domain) || a.slug.localeCompare(b.slug));
  const start = (query.page - 1) * query.page_size;
  return { rows: items.slice(start, start + query.page_size), total: items.length };
}

export async function getPlugin(deps: DomainDeps, id: number): Promise<PluginRow> {
  const plugin = await deps.db.models.Plugin.findByPk(id);
  if (!plugin) throw notFound('插件不存在或未安装');
  return plugin;
}

/** What a scan found, counted by state; the folders themselves are listed by `listPlugins`. */
export async function scanPluginFolders(deps: DomainDeps) {
  const scanned = await scanPlugins(pluginsRoot(deps.config));
  const rows = await deps.db.models.Plugin.findAll({ attributes: ['domain', 'slug'] });
  const installed = new Set(rows.map((r) => `${r.domain}/${r.slug}`));
  const fresh = scanned.filter((s) => !installed.has(`${s.domain}/${s.slug}`));
  return {
    found: scanned.length,
    recognised: fresh.length,
    installed: scanned.length - fresh.length,
    invalid: scanned.filter((s) => s.error !== null).length,
    list: fresh.map((s) => ({ domain: s.domain, slug: s.slug, name: s.manifest?.info.name ?? s.slug, error: s.error })),
  };
}

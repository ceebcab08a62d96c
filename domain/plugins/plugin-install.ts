import { UniqueConstraintError } from 'sequelize';
import { conflict } from '../../lib/errors.js';
import type { PluginRow } from '../../db/models/plugin.js';
import type { PluginDomain } from '../../plugins/runtime/contract.js';
import { initialConfig } from '../../plugins/runtime/config-apply.js';
import { checkPluginForInstall } from '../../plugins/runtime/install-check.js';
import { pluginsRoot } from '../../plugins/runtime/plugins-root.js';
import { scanPlugins } from '../../plugins/runtime/scan.js';
import type { DomainDeps } from '../deps.js';
import { takenTaskKeys } from '../tasks/catalogue.js';
import { recordSystemLog } from '../logs/system-logs.js';

/** `recognised → installed`: every declaration is checked first; the manifest is snapshotted. */
export async function installPlugin(deps: DomainDeps, domain: PluginDomain, slug: string): Promise<PluginRow> {
  const { Plugin } = deps.db.models;
  if (await Plugin.findOne({ where: { domain, slug } })) throw conflict('插件已安装');
  const root = pluginsRoot(deps.config);
  const takenKeys = new Map<string, string>();
  for (const s of await scanPlugins(root)) {
    if (s.domain === domain && s.slug !== slug && s.manifest && !s.error) takenKeys.set(s.manifest.info.key, s.slug);
  }
  for (const row of await Plugin.findAll({ where: { domain } })) takenKeys.set(row.key, row.slug);
  const manifest = await checkPluginForInstall({
    root,
    domain,
    slug,
    takenKeys,
    takenTaskKeys: await takenTaskKeys(deps),
    onLoadError: (err) => deps.logger.warn({ err, domain, slug }, 'plugin entry failed to load at install'),
  });
  let plugin: PluginRow;
  try {
    plugin = await Plugin.create({
      domain,
      slug,
      key: manifest.info.key,
      name: manifest.info.name,
      version: manifest.info.version,
      status: 'installed',
      manifest,
      config: initialConfig(manifest.config),
      secrets: {},
    });
  } catch (error) {
    if (error instanceof UniqueConstraintError) throw conflict('插件已安装，或其 key 已被同领域的插件使用');
    throw error;
  }
  await recordSystemLog(deps, { category: 'plugin', event: 'plugin.installed', message: `插件 ${slug} 已安装（${manifest.info.version}）`, detail: { plugin_id: plugin.id, domain, slug, version: manifest.info.version } });
  return plugin;
}

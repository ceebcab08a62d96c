import { AppError, ErrorCode } from '../../lib/errors.js';
import type { InferAttributes } from 'sequelize';
import type { PluginRow } from '../../db/models/plugin.js';
import { sqlOne, statement } from '../../db/sql.js';
import type { PluginBindingRow } from '../../db/models/plugin-binding.js';
import type { RuntimeDeps } from './deps.js';
import type { PluginDomain } from './contract.js';
import { PLUGIN_DOMAIN_LABELS } from './domain-labels.js';

export const DEFAULT_SCENE = 'default';

/** A scene's default binding of the domain, or the binding of one business object. */
export type BindingSelector = { scene: string } | { type: 'supplier' | 'product' | 'service'; id: number };

/** Which plugin to call: by slug, by id, or through a binding (default: the `default` scene). */
export type PluginSelector = { slug?: string; pluginId?: number; binding?: BindingSelector };

/** A plugin's row as the runtime reads it (attributes only). */
export type PluginRecord = InferAttributes<PluginRow>;

export type ResolvedTarget = { plugin: PluginRecord; bindingId: number | null };

const PLUGIN_COLUMNS = 'id, domain, slug, key, name, version, status, manifest, config, secrets, installed_at, enabled_at, disabled_at, created_at, updated_at';
/** Every payment notification and upstream call resolves its plugin: one prepared statement, without Sequelize's per-query work. */
const PLUGIN_BY_ID = statement(`SELECT ${PLUGIN_COLUMNS} FROM plugins WHERE id = $1 AND domain = $2`);
const PLUGIN_BY_SLUG = statement(`SELECT ${PLUGIN_COLUMNS} FROM plugins WHERE slug = $1 AND domain = $2`);

/**
 * The binding of a scene (falling back to the `default` scene) or of a business object, with
 * its plugin; null when nothing is bound. The plugin may be disabled: callers check `status`.
 */
export async function findBinding(deps: RuntimeDeps, domain: PluginDomain, selector: BindingSelector): Promise<PluginBindingRow | null> {
  const { PluginBinding } = deps.db.models;
  const include = [{ association: 'plugin' }];
  if ('scene' in selector) {
    const scenes = selector.scene === DEFAULT_SCENE ? [DEFAULT_SCENE] : [selector.scene, DEFAULT_SCENE];
    for (const scene of scenes) {
      const row = await PluginBinding.findOne({ where: { domain, binding_type: 'default', scene }, include });
      if (row) return row;
    }
    return null;
  }
  return PluginBinding.findOne({ where: { domain, binding_type: selector.type, binding_id: selector.id }, include });
}

/** Resolves the plugin of an invocation; a missing or (unless allowed) non-enabled plugin is 42200. */
export async function resolvePluginTarget(
  deps: RuntimeDeps,
  domain: PluginDomain,
  selector: PluginSelector,
  allowNotEnabled = false,
): Promise<ResolvedTarget> {
  const label = PLUGIN_DOMAIN_LABELS[domain];
  let target: ResolvedTarget | null = null;
  if (selector.pluginId !== undefined || selector.slug !== undefined) {
    const plugin =
      selector.pluginId !== undefined
        ? await sqlOne<PluginRecord>(deps, PLUGIN_BY_ID, [selector.pluginId, domain])
        : await sqlOne<PluginRecord>(deps, PLUGIN_BY_SLUG, [selector.slug as string, domain]);
    target = plugin ? { plugin, bindingId: null } : null;
  } else {
    const binding = await findBinding(deps, domain, selector.binding ?? { scene: DEFAULT_SCENE });
    target = binding?.plugin ? { plugin: binding.plugin, bindingId: binding.id } : null;
  }
  if (!target) throw new AppError(ErrorCode.VALIDATION, `未配置可用的${label}插件`);
  if (!allowNotEnabled && target.plugin.status !== 'enabled') throw new AppError(ErrorCode.VALIDATION, `${label}插件未启用`);
  return target;
}

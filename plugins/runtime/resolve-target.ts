import { AppError, ErrorCode } from '../../lib/errors.js';
import type { PluginRow } from '../../db/models/plugin.js';
import type { PluginBindingRow } from '../../db/models/plugin-binding.js';
import type { RuntimeDeps } from './deps.js';
import type { PluginDomain } from './contract.js';
import { PLUGIN_DOMAIN_LABELS } from './domain-labels.js';

export const DEFAULT_SCENE = 'default';

/** A scene's default binding of the domain, or the binding of one business object. */
export type BindingSelector = { scene: string } | { type: 'supplier' | 'product' | 'service'; id: number };

/** Which plugin to call: by slug, by id, or through a binding (default: the `default` scene). */
export type PluginSelector = { slug?: string; pluginId?: number; binding?: BindingSelector };

export type ResolvedTarget = { plugin: PluginRow; bindingId: number | null };

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
    const where = selector.pluginId !== undefined ? { id: selector.pluginId, domain } : { slug: selector.slug as string, domain };
    const plugin = await deps.db.models.Plugin.findOne({ where });
    target = plugin ? { plugin, bindingId: null } : null;
  } else {
    const binding = await findBinding(deps, domain, selector.binding ?? { scene: DEFAULT_SCENE });
    target = binding?.plugin ? { plugin: binding.plugin, bindingId: binding.id } : null;
  }
  if (!target) throw new AppError(ErrorCode.VALIDATION, `未配置可用的${label}插件`);
  if (!allowNotEnabled && target.plugin.status !== 'enabled') throw new AppError(ErrorCode.VALIDATION, `${label}插件未启用`);
  return target;
}

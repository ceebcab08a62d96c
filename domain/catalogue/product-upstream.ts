import type { Transaction } from 'sequelize';
import { type FieldErrors, validationError } from '../../lib/errors.js';
import type { PluginRow } from '../../db/models/plugin.js';
import type { DomainDeps } from '../deps.js';

type Scalar = string | number | boolean | null;
export type FlatMap = Record<string, Scalar | Scalar[]>;

/**
 * The upstream plugin a product binds to: installed, of the `upstream` domain, and enabled
 * when the product is of type `other` (its purchase and console come from the plugin).
 * Otherwise 42200 on `plugin_id`.
 */
export async function checkUpstreamPlugin(deps: DomainDeps, pluginId: number, requireEnabled: boolean, transaction: Transaction): Promise<PluginRow> {
  const plugin = await deps.db.models.Plugin.findByPk(pluginId, { transaction, lock: transaction.LOCK.SHARE });
  if (!plugin) throw validationError({ plugin_id: ['上游插件不存在或未安装'] });
  if (plugin.domain !== 'upstream') throw validationError({ plugin_id: ['只能绑定上游（upstream）领域的插件'] });
  if (requireEnabled && plugin.status !== 'enabled') {
    throw validationError({ plugin_id: ['类型为“其他”的商品必须绑定已启用的上游插件，该插件尚未启用'] });
  }
  return plugin;
}

/** The real provider identity of an upstream plugin: `info.extra.provider_key`, else its key. Never aliased. */
export function providerKeyOf(plugin: PluginRow): string {
  const extra = plugin.manifest.info.extra as Record<string, unknown> | undefined;
  const key = extra?.provider_key;
  return typeof key === 'string' && key.trim() !== '' ? key.trim() : plugin.key;
}

function isScalar(value: unknown): value is Scalar {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/**
 * A config template or provisioning policy: a flat object whose values are scalars or arrays
 * of scalars (a deeper structure would break the response nesting limit where it is shown).
 */
export function parseFlatMap(value: unknown, path: string): FlatMap {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw validationError({ [path]: ['必须是对象'] });
  const errors: FieldErrors = {};
  const entries = Object.entries(value);
  if (entries.length > 100) errors[path] = ['最多 100 个键'];
  for (const [key, v] of entries) {
    if (isScalar(v) || (Array.isArray(v) && v.length <= 100 && v.every(isScalar))) continue;
    (errors[`${path}.${key}`] ??= []).push('值只能是文本、数字、布尔值或由它们组成的数组，不能嵌套对象');
  }
  if (JSON.stringify(value).length > 8_000) (errors[path] ??= []).push('内容过长（最多 8000 个字符）');
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return value as FlatMap;
}

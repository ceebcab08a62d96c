import { UniqueConstraintError, type WhereOptions } from 'sequelize';
import { AppError, conflict, ErrorCode, notFound, validationError } from '../../lib/errors.js';
import type { PluginBindingRow, PluginBindingType } from '../../db/models/plugin-binding.js';
import type { PluginDomain } from '../../plugins/runtime/contract.js';
import { PLUGIN_DOMAIN_LABELS } from '../../plugins/runtime/domain-labels.js';
import type { DomainDeps } from '../deps.js';
import { getPlugin } from './plugin-catalogue.js';

export type BindingListQuery = {
  page: number;
  page_size: number;
  domain?: PluginDomain | undefined;
  binding_type?: PluginBindingType | undefined;
  plugin_id?: number | undefined;
  scene?: string | undefined;
};

export async function listPluginBindings(deps: DomainDeps, query: BindingListQuery) {
  const where: WhereOptions<PluginBindingRow> = {};
  for (const key of ['domain', 'binding_type', 'plugin_id', 'scene'] as const) {
    if (query[key] !== undefined) Object.assign(where, { [key]: query[key] });
  }
  const { rows, count } = await deps.db.models.PluginBinding.findAndCountAll({
    where,
    include: [{ association: 'plugin' }],
    order: [['id', 'DESC']],
    limit: query.page_size,
    offset: (query.page - 1) * query.page_size,
  });
  return { rows, total: count };
}

export type CreateBindingInput = {
  plugin_id: number;
  binding_type: PluginBindingType;
  scene?: string | undefined;
  binding_id?: number | undefined;
};

/**
 * Binds an enabled plugin: as the default of a scene of its domain (one per domain and scene),
 * or to a supplier, product or service (one per object and domain).
 */
export async function createPluginBinding(deps: DomainDeps, input: CreateBindingInput): Promise<PluginBindingRow> {
  const plugin = await getPlugin(deps, input.plugin_id);
  if (plugin.status !== 'enabled') throw new AppError(ErrorCode.VALIDATION, '只能绑定已启用的插件');
  const isDefault = input.binding_type === 'default';
  if (isDefault && input.binding_id !== undefined) throw validationError({ binding_id: ['默认绑定不需要 binding_id'] });
  if (!isDefault && input.binding_id === undefined) throw validationError({ binding_id: ['请填写绑定对象编号'] });
  if (!isDefault && input.scene !== undefined) throw validationError({ scene: ['只有默认绑定可以指定场景'] });
  const scene = isDefault ? (input.scene ?? 'default') : null;
  try {
    const row = await deps.db.models.PluginBinding.create({
      plugin_id: plugin.id,
      domain: plugin.domain,
      binding_type: input.binding_type,
      scene,
      binding_id: isDefault ? null : (input.binding_id ?? null),
    });
    row.plugin = plugin;
    return row;
  } catch (error) {
    if (!(error instanceof UniqueConstraintError)) throw error;
    const label = PLUGIN_DOMAIN_LABELS[plugin.domain];
    throw conflict(isDefault ? `${label}场景 ${scene} 已有默认插件，请先删除原绑定` : `该对象已绑定${label}插件，请先删除原绑定`);
  }
}

export async function deletePluginBinding(deps: DomainDeps, id: number): Promise<void> {
  const row = await deps.db.models.PluginBinding.findByPk(id);
  if (!row) throw notFound('插件绑定不存在');
  await row.destroy();
}

import { Op, UniqueConstraintError, type WhereOptions } from 'sequelize';
import { AppError, conflict, ErrorCode, notFound, validationError } from '../../lib/errors.js';
import type { PluginRow } from '../../db/models/plugin.js';
import type { SupplierInterfaceType, SupplierRow } from '../../db/models/supplier.js';
import type { DomainDeps } from '../deps.js';
import { checkSupplierBaseUrl, type Resolver } from './base-url-policy.js';

export type SupplierInput = {
  code: string;
  name: string;
  interface_type: SupplierInterfaceType;
  base_url: string;
  account: string;
  /** Plain text on the way in only; sealed before it is stored, never returned. */
  api_key: string;
  plugin_id?: number | undefined;
  status?: 'active' | 'disabled' | undefined;
  remark?: string | undefined;
};

export type SupplierUpdate = Partial<Omit<SupplierInput, 'code' | 'interface_type'>>;

/**
 * The installed upstream plugin that serves an interface type: the one whose manifest declares it
 * as `info.extra.provider_key` (provider keys are never normalised into one another). With an
 * explicit `plugin_id` that plugin must declare it; otherwise exactly one installed plugin must.
 */
export async function resolveSupplierPlugin(deps: DomainDeps, interfaceType: SupplierInterfaceType, pluginId?: number): Promise<PluginRow> {
  const plugins = await deps.db.models.Plugin.findAll({ where: { domain: 'upstream', ...(pluginId ? { id: pluginId } : {}) } });
  const serving = plugins.filter((p) => p.manifest.info.extra?.provider_key === interfaceType);
  if (pluginId !== undefined && serving.length === 0) {
    throw validationError({ plugin_id: [`该上游插件不支持接口类型 ${interfaceType}`] });
  }
  if (serving.length === 0) throw validationError({ interface_type: [`尚未安装支持接口类型 ${interfaceType} 的上游插件，请先安装并启用对应插件`] });
  if (serving.length > 1) throw validationError({ plugin_id: ['有多个上游插件支持该接口类型，请指定 plugin_id'] });
  return serving[0] as PluginRow;
}

export type SupplierListQuery = { page: number; page_size: number; keyword?: string | undefined; interface_type?: SupplierInterfaceType | undefined; status?: 'active' | 'disabled' | undefined };

export async function listSuppliers(deps: DomainDeps, query: SupplierListQuery) {
  const where: WhereOptions<SupplierRow> = {};
  if (query.interface_type) Object.assign(where, { interface_type: query.interface_type });
  if (query.status) Object.assign(where, { status: query.status });
  if (query.keyword) {
    const like = `%${query.keyword.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    Object.assign(where, { [Op.or]: [{ code: { [Op.iLike]: like } }, { name: { [Op.iLike]: like } }] });
  }
  const { rows, count } = await deps.db.models.Supplier.findAndCountAll({
    where,
    order: [['id', 'DESC']],
    limit: query.page_size,
    offset: (query.page - 1) * query.page_size,
  });
  return { rows, total: count };
}

export async function getSupplier(deps: DomainDeps, id: number): Promise<SupplierRow> {
  const row = await deps.db.models.Supplier.findByPk(id);
  if (!row) throw notFound('供应商不存在');
  return row;
}

export async function createSupplier(deps: DomainDeps, input: SupplierInput, resolve?: Resolver): Promise<SupplierRow> {
  const plugin = await resolveSupplierPlugin(deps, input.interface_type, input.plugin_id);
  const baseUrl = await checkSupplierBaseUrl(deps.config, input.base_url, resolve);
  try {
    return await deps.db.models.Supplier.create({
      code: input.code,
      name: input.name,
      interface_type: input.interface_type,
      plugin_id: plugin.id,
      base_url: baseUrl,
      account: input.account,
      api_key_sealed: deps.secretBox.seal(input.api_key),
      status: input.status ?? 'active',
      remark: input.remark ?? '',
    });
  } catch (error) {
    if (error instanceof UniqueConstraintError) throw conflict(`供应商编码 ${input.code} 已存在`);
    throw error;
  }
}

/** An empty `api_key` keeps the stored one (the key is never shown, so forms send it blank). */
export async function updateSupplier(deps: DomainDeps, id: number, input: SupplierUpdate, resolve?: Resolver): Promise<SupplierRow> {
  const row = await getSupplier(deps, id);
  const patch: Partial<SupplierRow> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.account !== undefined) patch.account = input.account;
  if (input.status !== undefined) patch.status = input.status;
  if (input.remark !== undefined) patch.remark = input.remark;
  if (input.base_url !== undefined) patch.base_url = await checkSupplierBaseUrl(deps.config, input.base_url, resolve);
  if (input.api_key) patch.api_key_sealed = deps.secretBox.seal(input.api_key);
  if (input.plugin_id !== undefined) patch.plugin_id = (await resolveSupplierPlugin(deps, row.interface_type, input.plugin_id)).id;
  return row.update(patch);
}

/** Refused while products are bound to it (a first or a further binding): their provisioning would lose its supplier. */
export async function deleteSupplier(deps: DomainDeps, id: number): Promise<void> {
  const row = await getSupplier(deps, id);
  const bound =
    (await deps.db.models.ProductUpstreamBinding.count({ where: { supplier_id: id } })) +
    (await deps.db.models.ProductUpstreamAlternate.count({ where: { supplier_id: id } }));
  if (bound > 0) throw new AppError(ErrorCode.IN_USE, `供应商仍绑定了 ${bound} 个商品，请先解除绑定`);
  await row.destroy();
}

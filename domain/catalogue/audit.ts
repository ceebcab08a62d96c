import type { Actor } from '../../lib/actor.js';
import type { Transaction } from 'sequelize';
import { sqlOne, sqlParams, sqlRows } from '../../db/sql.js';
import { notFound } from '../../lib/errors.js';
import { pgSafe, pgSafeText } from '../../lib/pg-safe.js';
import type { CatalogueEntityType } from '../../db/models/catalogue.js';
import type { DomainDeps } from '../deps.js';


export type FieldChange = { old: unknown; new: unknown };
export type FieldChanges = Record<string, FieldChange>;

/** Ours, plus the supplier import's (`import`, `sync`, `bind_supplier`: domain/suppliers/product-import.ts) and the re-pricing of drift (`reprice`: domain/economics/reprice.ts). */
export const AUDIT_ACTIONS = ['create', 'update', 'delete', 'reorder', 'move', 'retype', 'bind_category', 'import', 'sync', 'bind_supplier', 'reprice'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_ACTION_LABELS: Record<AuditAction, string> = {
  create: '创建',
  update: '修改',
  delete: '删除',
  reorder: '调整排序',
  move: '随上级移动',
  retype: '随一级菜单变更类型',
  bind_category: '批量绑定分类',
  import: '从供应商导入',
  sync: '与供应商同步',
  bind_supplier: '绑定供应商商品',
  reprice: '按加价规则重新定价',
};

export const AUDIT_ENTITY_LABELS: Record<CatalogueEntityType, string> = { menu: '一级菜单', group: '二级分组', category: '三级分类', product: '商品' };

const FIELD_LABELS: Record<string, string> = {
  code: '编码',
  name: '名称',
  display_name: '展示名称',
  description: '描述',
  icon: '图标',
  first_product_group_id: '一级菜单',
  second_product_group_id: '二级分组',
  product_group_id: '三级分类',
  product_type: '商品类型',
  service_type_code: '服务类型',
  is_visible: '是否显示',
  sort_order: '排序',
  pricing: '价格',
  config_options: '配置项',
  purchase_template: '购买页模板',
  console_template: '控制台模板',
  stock_control: '库存控制',
  stock_qty: '库存数量',
  status: '状态',
  plugin_id: '上游插件',
  upstream_product_id: '上游商品编号',
  config_template: '配置模板',
  provisioning_policy: '开通策略',
  supplier_id: '供应商',
  price_rule: '价格规则',
  upstream_bindings: '上游绑定',
  upstream_routing: '上游路由策略',
  before: '同步前',
  after: '同步后',
};

const FIELD_ORDER = new Map(Object.keys(FIELD_LABELS).map((field, i) => [field, i]));

function isFieldChange(value: unknown): value is FieldChange {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).sort().join() === 'new,old';
}

/**
 * The changes in a stable, readable order (JSONB does not keep key order). Entries written as
 * plain values (the supplier import records `{supplier_id: 3}`) read as set from nothing.
 */
export function orderedChanges(changes: Record<string, unknown>): Array<[string, FieldChange]> {
  const rank = (field: string) => FIELD_ORDER.get(field) ?? FIELD_ORDER.size;
  return Object.entries(changes)
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([field, value]): [string, FieldChange] => [field, isFieldChange(value) ? value : { old: null, new: value }]);
}

export function auditFieldLabel(field: string): string {
  return FIELD_LABELS[field] ?? field;
}

/** JSON text with object keys sorted, so `{a,b}` and `{b,a}` compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  ) ?? 'null';
}

/** The fields of `fields` whose value differs between `before` and `after` (absent counts as null). */
export function diffFields(before: Record<string, unknown> | null, after: Record<string, unknown>, fields: readonly string[]): FieldChanges {
  const changes: FieldChanges = {};
  for (const field of fields) {
    if (!(field in after)) continue;
    const old = before ? (before[field] ?? null) : null;
    const next = after[field] ?? null;
    if (canonical(old) !== canonical(next)) changes[field] = { old, new: next };
  }
  return changes;
}

/** A change value as the wire shows it: scalars as they are, objects and arrays as JSON text. */
export function auditValueText(value: unknown): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return canonical(value);
}

function short(value: unknown): string {
  const text = value === null || value === undefined || value === '' ? '空' : String(auditValueText(value));
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** One line of Chinese for lists: "名称：入门型 → 标准型；价格已修改". */
export function summariseChanges(changes: Record<string, unknown>): string {
  const parts = orderedChanges(changes).map(([field, change]) => {
    const label = auditFieldLabel(field);
    const complex = [change.old, change.new].some((v) => v !== null && typeof v === 'object');
    return complex ? `${label}已修改` : `${label}：${short(change.old)} → ${short(change.new)}`;
  });
  const text = parts.join('；');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export type AuditRecord = { entity_type: CatalogueEntityType; entity_id: number; action: AuditAction; changes: FieldChanges };

/** Writes audit rows in the transaction of the change (so an audit exists iff the change does). */
export async function recordCatalogueAudit(deps: DomainDeps, records: AuditRecord[], operator: Actor, transaction: Transaction): Promise<void> {
  if (records.length === 0) return;
  await deps.db.models.CatalogueAuditLog.bulkCreate(
    records.map((r) => ({ ...r, changes: pgSafe(r.changes), operator_id: operator.id, operator_name: pgSafeText(operator.name).slice(0, 64) })),
    { transaction },
  );
}

export type AuditEntry = {
  id: number;
  entity_type: CatalogueEntityType;
  entity_id: number;
  action: AuditAction;
  /** `{field: {old, new}}` from the catalogue; other writers may record plain values (see `orderedChanges`). */
  changes: Record<string, unknown>;
  operator_id: number | null;
  operator_name: string;
  created_at: Date;
};

export type AuditListQuery = {
  page: number;
  page_size: number;
  entity_type?: CatalogueEntityType | undefined;
  entity_id?: number | undefined;
  operator_id?: number | undefined;
  action?: AuditAction | undefined;
};

/** The audit list, newest first, filtered by entity, operator and action. */
export async function listCatalogueAudit(deps: DomainDeps, query: AuditListQuery): Promise<{ rows: AuditEntry[]; total: number }> {
  const conditions: string[] = [];
  const { values, param } = sqlParams();
  for (const key of ['entity_type', 'entity_id', 'operator_id', 'action'] as const) {
    if (query[key] === undefined) continue;
    conditions.push(`${key} = ${param(query[key])}`);
  }
  const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  const paging = [query.page_size, (query.page - 1) * query.page_size];
  const [rows, counted] = await Promise.all([
    sqlRows<AuditEntry>(
      deps,
      `SELECT id::int AS id, entity_type, entity_id, action, changes, operator_id, operator_name, created_at
         FROM catalogue_audit_logs ${where} ORDER BY created_at DESC, id DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
      [...values, ...paging],
    ),
    sqlRows<{ total: number }>(deps, `SELECT count(*)::int AS total FROM catalogue_audit_logs ${where}`, values),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

export async function getCatalogueAuditEntry(deps: DomainDeps, id: number): Promise<AuditEntry> {
  const row = await sqlOne<AuditEntry>(
    deps,
    `SELECT id::int AS id, entity_type, entity_id, action, changes, operator_id, operator_name, created_at FROM catalogue_audit_logs WHERE id = $1`,
    [id],
  );
  if (!row) throw notFound('变更记录不存在');
  return row;
}

/** The path of the full, paged audit list of one entity (shown beside the last entries). */
export function auditListPath(entityType: CatalogueEntityType, entityId: number): string {
  return `/api/v2/admin/catalogue-audit-logs?entity_type=${entityType}&entity_id=${entityId}`;
}

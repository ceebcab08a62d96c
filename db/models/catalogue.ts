import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';
import type { ConfigOptionItem, PricingMap } from '../../lib/catalogue-contract.js';
import { currentRequestContext } from '../../lib/request-context.js';

/**
 * The 8 fixed product types (spec: Product type, Product type resolution). No route creates a
 * type; first-level menus bind to one of these. Migration 0003's CHECKs hold the same list;
 * labels and templates are in `domain/catalogue/product-types.ts`.
 */
export const PRODUCT_TYPES = [
  'cloud_server',
  'game_cloud',
  'cloud_desktop',
  'bare_metal',
  'cdn',
  'other',
  'physical_machine',
  'web_hosting',
] as const;

export type ProductType = (typeof PRODUCT_TYPES)[number];

export interface ProductMenuRow extends Model<InferAttributes<ProductMenuRow>, InferCreationAttributes<ProductMenuRow>> {
  id: CreationOptional<number>;
  code: string;
  name: string;
  icon: CreationOptional<string>;
  product_type: ProductType;
  is_visible: CreationOptional<number>;
  sort_order: CreationOptional<number>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
  deleted_at: CreationOptional<Date | null>;
}

export interface ProductGroupRow extends Model<InferAttributes<ProductGroupRow>, InferCreationAttributes<ProductGroupRow>> {
  id: CreationOptional<number>;
  first_product_group_id: number;
  name: string;
  description: CreationOptional<string>;
  is_visible: CreationOptional<number>;
  sort_order: CreationOptional<number>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
  deleted_at: CreationOptional<Date | null>;
}

export interface ProductCategoryRow extends Model<InferAttributes<ProductCategoryRow>, InferCreationAttributes<ProductCategoryRow>> {
  id: CreationOptional<number>;
  second_product_group_id: number;
  name: string;
  description: CreationOptional<string>;
  is_visible: CreationOptional<number>;
  sort_order: CreationOptional<number>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
  deleted_at: CreationOptional<Date | null>;
}

export type ProductStatus = 'active' | 'hidden';

export interface ProductRow extends Model<InferAttributes<ProductRow>, InferCreationAttributes<ProductRow>> {
  id: CreationOptional<number>;
  first_product_group_id: number;
  second_product_group_id: number | null;
  product_group_id: number | null;
  name: string;
  display_name: CreationOptional<string>;
  description: CreationOptional<string>;
  product_type: ProductType;
  service_type_code: ProductType;
  pricing: PricingMap;
  config_options: ConfigOptionItem[];
  purchase_template: CreationOptional<string | null>;
  console_template: CreationOptional<string | null>;
  stock_control: CreationOptional<boolean>;
  stock_qty: CreationOptional<number>;
  status: CreationOptional<ProductStatus>;
  sort_order: CreationOptional<number>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
  deleted_at: CreationOptional<Date | null>;
  upstream_routing: CreationOptional<UpstreamRoutingPolicy>;
}

export interface ProductUpstreamBindingRow
  extends Model<InferAttributes<ProductUpstreamBindingRow>, InferCreationAttributes<ProductUpstreamBindingRow>> {
  product_id: number;
  plugin_id: number | null;
  supplier_id: number | null;
  provider_key: CreationOptional<string>;
  upstream_product_id: CreationOptional<string>;
  config_template: CreationOptional<Record<string, unknown>>;
  provisioning_policy: CreationOptional<Record<string, unknown>>;
  /** The markup applied at import (0007), re-applied by a re-sync. */
  price_rule: CreationOptional<Record<string, unknown>>;
  synced_at: CreationOptional<Date | null>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

/** A product's routing policy among its upstream bindings (`products.upstream_routing`, migration 0046). */
export const UPSTREAM_ROUTING_POLICIES = ['priority', 'lowest_cost'] as const;
export type UpstreamRoutingPolicy = (typeof UPSTREAM_ROUTING_POLICIES)[number];

/** A further upstream binding of a product (priority 1, 2, …; the first one is `product_upstream_bindings`). */
export interface ProductUpstreamAlternateRow
  extends Model<InferAttributes<ProductUpstreamAlternateRow>, InferCreationAttributes<ProductUpstreamAlternateRow>> {
  id: CreationOptional<number>;
  product_id: number;
  priority: number;
  supplier_id: number;
  plugin_id: number | null;
  provider_key: CreationOptional<string>;
  upstream_product_id: string;
  config_template: CreationOptional<Record<string, unknown>>;
  /** The markup of the supplier's prices (`domain/suppliers/price-rule.ts`), like the first binding's. */
  price_rule: CreationOptional<Record<string, unknown>>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export type CatalogueEntityType = 'menu' | 'group' | 'category' | 'product';

export interface CatalogueAuditLogRow extends Model<InferAttributes<CatalogueAuditLogRow>, InferCreationAttributes<CatalogueAuditLogRow>> {
  id: CreationOptional<number>;
  entity_type: CatalogueEntityType;
  entity_id: number;
  action: string;
  changes: CreationOptional<Record<string, unknown>>;
  operator_id: number | null;
  operator_name: CreationOptional<string>;
  /** The request that made the change (the admin audit's request id), when made by one. */
  request_id: CreationOptional<string | null>;
  ip: CreationOptional<string>;
  created_at: CreationOptional<Date>;
}

function stampRequest(row: CatalogueAuditLogRow): void {
  const context = currentRequestContext();
  if (!context) return;
  row.request_id ??= context.requestId;
  if (!row.ip) row.ip = context.ip;
}

const timestamps = { created_at: DataTypes.DATE, updated_at: DataTypes.DATE };

export function defineCatalogueModels(sequelize: Sequelize) {
  const ProductMenu = sequelize.define<ProductMenuRow>(
    'ProductMenu',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      code: { type: DataTypes.STRING(32), allowNull: false, unique: true },
      name: { type: DataTypes.STRING(64), allowNull: false },
      icon: { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' },
      product_type: { type: DataTypes.STRING(32), allowNull: false },
      is_visible: { type: DataTypes.SMALLINT, allowNull: false, defaultValue: 1 },
      sort_order: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      ...timestamps,
      deleted_at: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: 'product_menus' },
  );
  const ProductGroup = sequelize.define<ProductGroupRow>(
    'ProductGroup',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      first_product_group_id: { type: DataTypes.INTEGER, allowNull: false },
      name: { type: DataTypes.STRING(64), allowNull: false },
      description: { type: DataTypes.STRING(500), allowNull: false, defaultValue: '' },
      is_visible: { type: DataTypes.SMALLINT, allowNull: false, defaultValue: 1 },
      sort_order: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      ...timestamps,
      deleted_at: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: 'product_groups' },
  );
  const ProductCategory = sequelize.define<ProductCategoryRow>(
    'ProductCategory',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      second_product_group_id: { type: DataTypes.INTEGER, allowNull: false },
      name: { type: DataTypes.STRING(64), allowNull: false },
      description: { type: DataTypes.STRING(500), allowNull: false, defaultValue: '' },
      is_visible: { type: DataTypes.SMALLINT, allowNull: false, defaultValue: 1 },
      sort_order: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      ...timestamps,
      deleted_at: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: 'product_categories' },
  );
  const Product = sequelize.define<ProductRow>(
    'Product',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      first_product_group_id: { type: DataTypes.INTEGER, allowNull: false },
      second_product_group_id: { type: DataTypes.INTEGER, allowNull: true },
      product_group_id: { type: DataTypes.INTEGER, allowNull: true },
      name: { type: DataTypes.STRING(128), allowNull: false },
      display_name: { type: DataTypes.STRING(128), allowNull: false, defaultValue: '' },
      description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      product_type: { type: DataTypes.STRING(32), allowNull: false },
      service_type_code: { type: DataTypes.STRING(32), allowNull: false },
      pricing: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      config_options: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
      purchase_template: { type: DataTypes.STRING(64), allowNull: true },
      console_template: { type: DataTypes.STRING(64), allowNull: true },
      stock_control: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      stock_qty: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' },
      sort_order: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      ...timestamps,
      deleted_at: { type: DataTypes.DATE, allowNull: true },
      upstream_routing: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'priority' },
    },
    { tableName: 'products' },
  );
  const ProductUpstreamBinding = sequelize.define<ProductUpstreamBindingRow>(
    'ProductUpstreamBinding',
    {
      product_id: { type: DataTypes.INTEGER, primaryKey: true },
      plugin_id: { type: DataTypes.INTEGER, allowNull: true },
      supplier_id: { type: DataTypes.INTEGER, allowNull: true },
      provider_key: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      upstream_product_id: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      config_template: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      provisioning_policy: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      price_rule: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      synced_at: { type: DataTypes.DATE, allowNull: true },
      ...timestamps,
    },
    { tableName: 'product_upstream_bindings' },
  );
  const ProductUpstreamAlternate = sequelize.define<ProductUpstreamAlternateRow>(
    'ProductUpstreamAlternate',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      product_id: { type: DataTypes.INTEGER, allowNull: false },
      priority: { type: DataTypes.INTEGER, allowNull: false },
      supplier_id: { type: DataTypes.INTEGER, allowNull: false },
      plugin_id: { type: DataTypes.INTEGER, allowNull: true },
      provider_key: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      upstream_product_id: { type: DataTypes.STRING(64), allowNull: false },
      config_template: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      price_rule: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      ...timestamps,
    },
    { tableName: 'product_upstream_alternates' },
  );
  const CatalogueAuditLog = sequelize.define<CatalogueAuditLogRow>(
    'CatalogueAuditLog',
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      entity_type: { type: DataTypes.STRING(16), allowNull: false },
      entity_id: { type: DataTypes.INTEGER, allowNull: false },
      action: { type: DataTypes.STRING(32), allowNull: false },
      changes: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      operator_id: { type: DataTypes.INTEGER, allowNull: true },
      operator_name: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      request_id: { type: DataTypes.STRING(64), allowNull: true },
      ip: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      created_at: DataTypes.DATE,
    },
    // A view of `admin_audit_logs` (0021): inserts go through its INSTEAD OF trigger; rows never change.
    // Each row names the request that made it (and its address), so the admin audit links the diff to the call.
    {
      tableName: 'catalogue_audit_logs',
      updatedAt: false,
      hooks: {
        beforeCreate: (row) => stampRequest(row),
        beforeBulkCreate: (rows) => rows.forEach(stampRequest),
      },
    },
  );
  return { ProductMenu, ProductGroup, ProductCategory, Product, ProductUpstreamBinding, ProductUpstreamAlternate, CatalogueAuditLog };
}

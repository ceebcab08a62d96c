import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';

export const SUPPLIER_INTERFACE_TYPES = ['upstream_finance_api', 'hosting_panel_api'] as const;
export type SupplierInterfaceType = (typeof SUPPLIER_INTERFACE_TYPES)[number];
/** The circuit breaker of a supplier (`supplier_breakers.state`, migration 0045; `domain/suppliers/health.ts`). */
export const SUPPLIER_BREAKER_STATES = ['closed', 'open', 'half_open'] as const;
export type SupplierBreakerState = (typeof SUPPLIER_BREAKER_STATES)[number];

export interface SupplierRow extends Model<InferAttributes<SupplierRow>, InferCreationAttributes<SupplierRow>> {
  id: CreationOptional<number>;
  code: string;
  name: string;
  /** The provider key of the upstream plugin it speaks through; never normalised into another. */
  interface_type: SupplierInterfaceType;
  /** Null only after its plugin was force-uninstalled (the supplier is then disabled). */
  plugin_id: number | null;
  base_url: string;
  account: string;
  /** The API key, sealed with the secret box; never returned. */
  api_key_sealed: string;
  status: CreationOptional<'active' | 'disabled'>;
  remark: CreationOptional<string>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export function defineSupplier(sequelize: Sequelize) {
  return sequelize.define<SupplierRow>(
    'Supplier',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      code: { type: DataTypes.STRING(32), allowNull: false, unique: true },
      name: { type: DataTypes.STRING(64), allowNull: false },
      interface_type: { type: DataTypes.STRING(32), allowNull: false },
      plugin_id: { type: DataTypes.INTEGER, allowNull: true },
      base_url: { type: DataTypes.STRING(255), allowNull: false },
      account: { type: DataTypes.STRING(191), allowNull: false },
      api_key_sealed: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' },
      remark: { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'suppliers' },
  );
}

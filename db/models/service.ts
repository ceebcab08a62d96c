import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';
import type { ProductType } from './catalogue.js';

export const SERVICE_STATUSES = ['pending', 'provisioning', 'active', 'suspended', 'terminated', 'cancelled', 'failed'] as const;
export type ServiceStatus = (typeof SERVICE_STATUSES)[number];

export interface ServiceRow extends Model<InferAttributes<ServiceRow>, InferCreationAttributes<ServiceRow>> {
  id: CreationOptional<number>;
  user_id: number;
  product_id: number;
  order_id: number;
  invoice_id: number;
  seq: CreationOptional<number>;
  status: CreationOptional<ServiceStatus>;
  /** Snapshot of the type at order time. */
  product_type: ProductType;
  billing_period: string;
  /** The chosen configuration (field → {value, label}) from the purchase quote. */
  config: CreationOptional<Record<string, unknown>>;
  /** Price of one renewal period (NUMERIC(14,2) as a string). */
  price: string;
  currency: CreationOptional<'CNY'>;
  next_due_at: CreationOptional<Date | null>;
  product_name: CreationOptional<string>;
  console_template: CreationOptional<string | null>;
  provider_key: CreationOptional<string>;
  plugin_key: CreationOptional<string>;
  supplier_id: CreationOptional<number | null>;
  hostname: CreationOptional<string>;
  /** The root password chosen at purchase, sealed; shown only through the logged reveal action. */
  password_sealed: CreationOptional<string>;
  /** The 32-character downstream reference, stored before the first upstream call. */
  downstream_token: CreationOptional<string | null>;
  ip: CreationOptional<string>;
  assigned_ips: CreationOptional<string[]>;
  os: CreationOptional<string>;
  username: CreationOptional<string>;
  port: CreationOptional<number | null>;
  upstream_status: CreationOptional<string>;
  provisioning_stage: CreationOptional<string>;
  stage_changed_at: CreationOptional<Date | null>;
  failure_code: CreationOptional<string | null>;
  failure_reason: CreationOptional<string | null>;
  auto_renew: CreationOptional<boolean>;
  activated_at: CreationOptional<Date | null>;
  suspended_at: CreationOptional<Date | null>;
  terminated_at: CreationOptional<Date | null>;
  cancelled_at: CreationOptional<Date | null>;
  upstream_synced_at: CreationOptional<Date | null>;
  /** The upstream's own due date of the host (host polling); not the customer's `next_due_at`. */
  upstream_due_at: CreationOptional<Date | null>;
  /** Why a suspended service is suspended: `overdue` ones are lifted by the lifecycle job once renewed. */
  suspend_reason: CreationOptional<SuspendReason | null>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export type SuspendReason = 'overdue' | 'admin';

export interface ServiceUpstreamBindingRow
  extends Model<InferAttributes<ServiceUpstreamBindingRow>, InferCreationAttributes<ServiceUpstreamBindingRow>> {
  service_id: number;
  product_id: number;
  supplier_id: number;
  plugin_id: number | null;
  provider_key: string;
  upstream_product_id: string;
  upstream_order_id: CreationOptional<number | null>;
  upstream_invoice_id: CreationOptional<number | null>;
  /** Null until the host is known; 0 is never stored (the API shows 0 for "no binding"). */
  upstream_host_id: CreationOptional<number | null>;
  /**
   * Written just before the checkout (settle) and the upstream payment are sent: a step that finds
   * its mark already set is running again after an unknown outcome and reconciles first.
   */
  checkout_attempted_at: CreationOptional<Date | null>;
  pay_attempted_at: CreationOptional<Date | null>;
  /** The upstream bill's amount as the settle (or probe) answer gave it; null when not answered (migration 0029). */
  upstream_amount: CreationOptional<string | null>;
  /** When the upstream bill was recorded as paid, with its cost row (`upstream_costs`, migration 0029). */
  upstream_paid_at: CreationOptional<Date | null>;
  bound_at: CreationOptional<Date | null>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export type ServiceEventStatus = 'started' | 'succeeded' | 'failed' | 'info';

export interface ServiceEventRow extends Model<InferAttributes<ServiceEventRow>, InferCreationAttributes<ServiceEventRow>> {
  id: CreationOptional<number>;
  service_id: number;
  /** provision, renew, traffic, lifecycle, admin, credential, ... */
  kind: string;
  stage: string;
  status: ServiceEventStatus;
  message: CreationOptional<string>;
  detail: CreationOptional<Record<string, unknown>>;
  workflow_id: CreationOptional<string | null>;
  operator_type: CreationOptional<'admin' | 'user' | 'system'>;
  operator_id: CreationOptional<number | null>;
  created_at: CreationOptional<Date>;
}

const nullableDate = () => ({ type: DataTypes.DATE, allowNull: true });
const text = (length: number) => ({ type: DataTypes.STRING(length), allowNull: false, defaultValue: '' });
// BIGINT columns hold upstream ids well inside the safe integer range; read them as numbers.
const bigintId = (key: 'upstream_order_id' | 'upstream_invoice_id' | 'upstream_host_id') => ({
  type: DataTypes.BIGINT,
  allowNull: true,
  get(this: ServiceUpstreamBindingRow) {
    const raw = this.getDataValue(key) as string | number | null;
    return raw === null ? null : Number(raw);
  },
});

export function defineServiceModels(sequelize: Sequelize) {
  const Service = sequelize.define<ServiceRow>(
    'Service',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      user_id: { type: DataTypes.INTEGER, allowNull: false },
      product_id: { type: DataTypes.INTEGER, allowNull: false },
      order_id: { type: DataTypes.INTEGER, allowNull: false },
      invoice_id: { type: DataTypes.INTEGER, allowNull: false },
      seq: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
      status: { type: DataTypes.STRING(24), allowNull: false, defaultValue: 'pending' },
      product_type: { type: DataTypes.STRING(32), allowNull: false },
      billing_period: { type: DataTypes.STRING(32), allowNull: false },
      config: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      price: { type: DataTypes.DECIMAL(14, 2), allowNull: false },
      currency: { type: DataTypes.STRING(3), allowNull: false, defaultValue: 'CNY' },
      next_due_at: nullableDate(),
      product_name: text(128),
      console_template: { type: DataTypes.STRING(64), allowNull: true },
      provider_key: text(64),
      plugin_key: text(64),
      supplier_id: { type: DataTypes.INTEGER, allowNull: true },
      hostname: text(128),
      password_sealed: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      downstream_token: { type: DataTypes.CHAR(32), allowNull: true },
      ip: text(64),
      assigned_ips: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
      os: text(128),
      username: text(64),
      port: { type: DataTypes.INTEGER, allowNull: true },
      upstream_status: text(32),
      provisioning_stage: text(32),
      stage_changed_at: nullableDate(),
      failure_code: { type: DataTypes.STRING(64), allowNull: true },
      failure_reason: { type: DataTypes.STRING(255), allowNull: true },
      auto_renew: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      activated_at: nullableDate(),
      suspended_at: nullableDate(),
      terminated_at: nullableDate(),
      cancelled_at: nullableDate(),
      upstream_synced_at: nullableDate(),
      upstream_due_at: nullableDate(),
      suspend_reason: { type: DataTypes.STRING(16), allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'services' },
  );
  const ServiceUpstreamBinding = sequelize.define<ServiceUpstreamBindingRow>(
    'ServiceUpstreamBinding',
    {
      service_id: { type: DataTypes.INTEGER, primaryKey: true },
      product_id: { type: DataTypes.INTEGER, allowNull: false },
      supplier_id: { type: DataTypes.INTEGER, allowNull: false },
      plugin_id: { type: DataTypes.INTEGER, allowNull: true },
      provider_key: { type: DataTypes.STRING(64), allowNull: false },
      upstream_product_id: { type: DataTypes.STRING(64), allowNull: false },
      upstream_order_id: bigintId('upstream_order_id'),
      upstream_invoice_id: bigintId('upstream_invoice_id'),
      upstream_host_id: bigintId('upstream_host_id'),
      checkout_attempted_at: nullableDate(),
      pay_attempted_at: nullableDate(),
      upstream_amount: { type: DataTypes.DECIMAL(12, 2), allowNull: true },
      upstream_paid_at: nullableDate(),
      bound_at: nullableDate(),
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'service_upstream_bindings' },
  );
  const ServiceEvent = sequelize.define<ServiceEventRow>(
    'ServiceEvent',
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      service_id: { type: DataTypes.INTEGER, allowNull: false },
      kind: { type: DataTypes.STRING(24), allowNull: false },
      stage: { type: DataTypes.STRING(32), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      message: text(255),
      detail: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      workflow_id: { type: DataTypes.STRING(255), allowNull: true },
      operator_type: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'system' },
      operator_id: { type: DataTypes.INTEGER, allowNull: true },
      created_at: DataTypes.DATE,
    },
    { tableName: 'service_events', updatedAt: false },
  );
  return { Service, ServiceUpstreamBinding, ServiceEvent };
}

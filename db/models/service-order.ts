import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';
import type { InvoiceType } from './billing.js';

/**
 * The stored vocabulary of `service_orders.kind` (its CHECK): the invoice types whose fulfilment
 * is `service_order` in the table of invoice kinds (`domain/billing/invoice-kinds.ts`), a test
 * holds the two equal (`test/domain/billing/invoice-kinds.test.ts`).
 */
export const SERVICE_ORDER_KINDS = ['renew', 'traffic_package', 'upgrade'] as const satisfies readonly InvoiceType[];
export type ServiceOrderKind = (typeof SERVICE_ORDER_KINDS)[number];

export const SERVICE_ORDER_STATUSES = ['pending', 'processing', 'awaiting_admin', 'succeeded', 'cancelled'] as const;
export type ServiceOrderStatus = (typeof SERVICE_ORDER_STATUSES)[number];

/**
 * The fulfilment of one paid renewal or traffic-package invoice (migration 0009): what it buys,
 * the upstream bill it settles (recorded before paying), where its workflow stands, and the
 * local effect once done.
 */
export interface ServiceOrderRow extends Model<InferAttributes<ServiceOrderRow>, InferCreationAttributes<ServiceOrderRow>> {
  id: CreationOptional<number>;
  invoice_id: number;
  service_id: number;
  user_id: number;
  kind: ServiceOrderKind;
  billing_period: CreationOptional<string | null>;
  months: CreationOptional<number | null>;
  package_id: CreationOptional<number | null>;
  package_name: CreationOptional<string>;
  size_gb: CreationOptional<number | null>;
  amount: string;
  currency: CreationOptional<'CNY'>;
  /** Null for a service without an upstream binding: the order is fulfilled locally. */
  supplier_id: CreationOptional<number | null>;
  upstream_host_id: CreationOptional<number | null>;
  /** Set before the committing request (renew / buy) is sent: a retry reconciles first. */
  upstream_requested_at: CreationOptional<Date | null>;
  upstream_invoice_id: CreationOptional<number | null>;
  upstream_amount: CreationOptional<string | null>;
  /** Set before the upstream bill is paid: a retry checks the bill first. */
  upstream_pay_requested_at: CreationOptional<Date | null>;
  upstream_paid_at: CreationOptional<Date | null>;
  status: CreationOptional<ServiceOrderStatus>;
  stage: CreationOptional<string>;
  stage_changed_at: CreationOptional<Date>;
  runs: CreationOptional<number>;
  failure_code: CreationOptional<string | null>;
  failure_reason: CreationOptional<string | null>;
  due_before: CreationOptional<Date | null>;
  due_after: CreationOptional<Date | null>;
  refund_id: CreationOptional<number | null>;
  /** Upgrades (migration 0017): the target configuration and its price (the new locked price). */
  upgrade_config: CreationOptional<Record<string, { value: number; label: string }> | null>;
  upgrade_price: CreationOptional<string | null>;
  /** Upgrades: what the change replaces, written when it completes. */
  config_before: CreationOptional<Record<string, unknown> | null>;
  price_before: CreationOptional<string | null>;
  /** Downgrades: the prorated credit (≥ 0), booked once the upstream confirmed (`credit_transaction_id`). */
  upgrade_credit: CreationOptional<string>;
  credit_transaction_id: CreationOptional<number | null>;
  workflow_id: string;
  completed_at: CreationOptional<Date | null>;
  cancelled_at: CreationOptional<Date | null>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

// BIGINT upstream ids are far inside the safe integer range: read them as numbers.
const bigintId = (key: 'upstream_host_id' | 'upstream_invoice_id') => ({
  type: DataTypes.BIGINT,
  allowNull: true,
  get(this: ServiceOrderRow) {
    const raw = this.getDataValue(key) as string | number | null;
    return raw === null ? null : Number(raw);
  },
});

const nullableDate = () => ({ type: DataTypes.DATE, allowNull: true });

export function defineServiceOrder(sequelize: Sequelize) {
  return sequelize.define<ServiceOrderRow>(
    'ServiceOrder',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      invoice_id: { type: DataTypes.INTEGER, allowNull: false },
      service_id: { type: DataTypes.INTEGER, allowNull: false },
      user_id: { type: DataTypes.INTEGER, allowNull: false },
      kind: { type: DataTypes.STRING(16), allowNull: false },
      billing_period: { type: DataTypes.STRING(32), allowNull: true },
      months: { type: DataTypes.INTEGER, allowNull: true },
      package_id: { type: DataTypes.INTEGER, allowNull: true },
      package_name: { type: DataTypes.STRING(128), allowNull: false, defaultValue: '' },
      size_gb: { type: DataTypes.INTEGER, allowNull: true },
      amount: { type: DataTypes.DECIMAL(14, 2), allowNull: false },
      currency: { type: DataTypes.STRING(3), allowNull: false, defaultValue: 'CNY' },
      supplier_id: { type: DataTypes.INTEGER, allowNull: true },
      upstream_host_id: bigintId('upstream_host_id'),
      upstream_requested_at: nullableDate(),
      upstream_invoice_id: bigintId('upstream_invoice_id'),
      upstream_amount: { type: DataTypes.DECIMAL(14, 2), allowNull: true },
      upstream_pay_requested_at: nullableDate(),
      upstream_paid_at: nullableDate(),
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'pending' },
      stage: { type: DataTypes.STRING(32), allowNull: false, defaultValue: 'queued' },
      stage_changed_at: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
      runs: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      failure_code: { type: DataTypes.STRING(64), allowNull: true },
      failure_reason: { type: DataTypes.STRING(255), allowNull: true },
      due_before: nullableDate(),
      due_after: nullableDate(),
      refund_id: { type: DataTypes.INTEGER, allowNull: true },
      upgrade_config: { type: DataTypes.JSONB, allowNull: true },
      upgrade_price: { type: DataTypes.DECIMAL(14, 2), allowNull: true },
      config_before: { type: DataTypes.JSONB, allowNull: true },
      price_before: { type: DataTypes.DECIMAL(14, 2), allowNull: true },
      upgrade_credit: { type: DataTypes.DECIMAL(14, 2), allowNull: false, defaultValue: '0.00' },
      credit_transaction_id: { type: DataTypes.INTEGER, allowNull: true },
      workflow_id: { type: DataTypes.STRING(255), allowNull: false },
      completed_at: nullableDate(),
      cancelled_at: nullableDate(),
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'service_orders' },
  );
}

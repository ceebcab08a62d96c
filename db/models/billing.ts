import type { ActorType } from '../../lib/actor.js';
import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';

/**
 * The values of every money document (decided here where the spec says "not shown"; docs/billing.md
 * "Money" lists them). The database CHECKs of migration 0004 hold the same lists; labels and
 * the rules built on them are in `domain/billing/constants.ts`.
 */

/** `purchase` and `renew`/`traffic_package`/`upgrade` have an order; `recharge`, `deduction`, `refund` (red entry) and `verification` (a paid real-name attempt) do not. */
export const INVOICE_TYPES = ['purchase', 'renew', 'traffic_package', 'upgrade', 'recharge', 'deduction', 'refund', 'verification'] as const;
export type InvoiceType = (typeof INVOICE_TYPES)[number];

/** `paid` means settled: red-entry refund invoices and admin documents are created `paid`. */
export const INVOICE_STATUSES = ['unpaid', 'paid', 'partially_refunded', 'refunded', 'cancelled'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const PAYMENT_CHANNELS = ['balance', 'qrpay', 'mixed', 'admin', 'free'] as const;
export type PaymentChannel = (typeof PAYMENT_CHANNELS)[number];

export const ORDER_TYPES = ['new_purchase', 'renewal', 'traffic_package', 'upgrade'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

export const ORDER_STATUSES = ['pending', 'paid', 'completed', 'cancelled', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const PAYMENT_STATUSES = ['pending', 'paid', 'closed', 'partially_refunded', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** How a paid payment was applied: to its invoice, or (invoice no longer payable) credited to the balance. */
export const PAYMENT_SETTLEMENTS = ['invoice', 'balance_credit'] as const;
export type PaymentSettlement = (typeof PAYMENT_SETTLEMENTS)[number];

export const PAID_SOURCES = ['notify', 'poll', 'close'] as const;
export type PaidSource = (typeof PAID_SOURCES)[number];

/** `upgrade_credit`: migration 0017; `commission_withdrawal`: referral commission withdrawn to the balance (migration 0020). */
export const TRANSACTION_TYPES = ['recharge', 'admin_recharge', 'admin_deduction', 'payment', 'payment_reversal', 'refund', 'upgrade_credit', 'commission_withdrawal'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

export const RECHARGE_SCENES = ['new_purchase', 'renewal', 'user_recharge', 'admin_recharge', 'refund'] as const;
export type RechargeScene = (typeof RECHARGE_SCENES)[number];

/** `in`: money came in; `out`: a refund offset (negative amount) against an original record. */
export const RECHARGE_DIRECTIONS = ['in', 'out'] as const;
export type RechargeDirection = (typeof RECHARGE_DIRECTIONS)[number];

/** Where the money of the record came from: a payment gateway, or an admin credit. Offsets keep their original's. */
export const RECHARGE_ENTRY_TYPES = ['third_party', 'admin'] as const;
export type RechargeEntryType = (typeof RECHARGE_ENTRY_TYPES)[number];

export const REFUND_METHODS = ['balance', 'original'] as const;
export type RefundMethod = (typeof REFUND_METHODS)[number];

/** `balance` refunds succeed at once; `original` ones are `processing` until the gateway answers. */
export const REFUND_STATUSES = ['processing', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];


/** Money columns are NUMERIC(14,2): pg hands them over as strings and they stay strings (or decimal.js). */
type Money = string;

export interface UserAccountRow extends Model<InferAttributes<UserAccountRow>, InferCreationAttributes<UserAccountRow>> {
  user_id: number;
  balance: CreationOptional<Money>;
  last_seq: CreationOptional<number>;
  currency: CreationOptional<'CNY'>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

/**
 * The one description of each money document's shape: the row as read (money columns as
 * two-digit strings). The raw money SQL reads exactly these columns (`*_COLUMNS`), the models
 * below add which of them the database fills in, and the API resources pick from them.
 */
export type InvoiceRecord = {
  id: number;
  invoice_no: string;
  user_id: number;
  type: InvoiceType;
  status: InvoiceStatus;
  subject: string;
  amount: Money;
  balance_amount: Money;
  third_party_amount: Money;
  refunded_amount: Money;
  currency: 'CNY';
  payment_channel: PaymentChannel | null;
  origin_invoice_id: number | null;
  service_id: number | null;
  payload: Record<string, unknown>;
  due_at: Date | null;
  paid_at: Date | null;
  dispatched_at: Date | null;
  cancelled_at: Date | null;
  remark: string;
  operator_type: ActorType;
  operator_id: number | null;
  operator_name: string;
  trace_id: string;
  created_at: Date;
  updated_at: Date;
};

export type OrderRecord = {
  id: number;
  order_no: string;
  user_id: number;
  invoice_id: number;
  type: OrderType;
  status: OrderStatus;
  product_id: number | null;
  service_id: number | null;
  amount: Money;
  currency: 'CNY';
  billing_period: string;
  quantity: number;
  config: Record<string, unknown>;
  paid_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export type PaymentRecord = {
  id: number;
  payment_no: string;
  invoice_id: number;
  user_id: number;
  plugin_id: number | null;
  gateway: string;
  trade_no: string | null;
  amount: Money;
  balance_part: Money;
  refunded_amount: Money;
  currency: 'CNY';
  status: PaymentStatus;
  settlement: PaymentSettlement | null;
  paid_source: PaidSource | null;
  notify_id: string | null;
  qr_code_url: string;
  expires_at: Date;
  paid_at: Date | null;
  closed_at: Date | null;
  trace_id: string;
  created_at: Date;
  updated_at: Date;
};

export type RefundRecord = {
  id: number;
  refund_no: string;
  user_id: number;
  invoice_id: number;
  refund_invoice_id: number | null;
  payment_id: number | null;
  amount: Money;
  balance_part: Money;
  third_party_part: Money;
  currency: 'CNY';
  refund_method: RefundMethod;
  status: RefundStatus;
  reason: string;
  scope: string[];
  out_request_no: string | null;
  failure_reason: string;
  operator_type: ActorType;
  operator_id: number | null;
  operator_name: string;
  refunded_at: Date | null;
  trace_id: string;
  created_at: Date;
  updated_at: Date;
};

/** A SELECT list of every column of a record, checked against its type (a missing or stray name does not compile). */
function columnsOf<R>() {
  return <const K extends readonly (keyof R & string)[]>(keys: K & ([Exclude<keyof R, K[number]>] extends [never] ? unknown : never)) =>
    keys.join(', ');
}

export const INVOICE_COLUMNS = columnsOf<InvoiceRecord>()([
  'id', 'invoice_no', 'user_id', 'type', 'status', 'subject', 'amount', 'balance_amount', 'third_party_amount', 'refunded_amount',
  'currency', 'payment_channel', 'origin_invoice_id', 'service_id', 'payload', 'due_at', 'paid_at', 'dispatched_at', 'cancelled_at',
  'remark', 'operator_type', 'operator_id', 'operator_name', 'trace_id', 'created_at', 'updated_at',
]);

export const ORDER_COLUMNS = columnsOf<OrderRecord>()([
  'id', 'order_no', 'user_id', 'invoice_id', 'type', 'status', 'product_id', 'service_id', 'amount', 'currency', 'billing_period',
  'quantity', 'config', 'paid_at', 'completed_at', 'created_at', 'updated_at',
]);

export const PAYMENT_COLUMNS = columnsOf<PaymentRecord>()([
  'id', 'payment_no', 'invoice_id', 'user_id', 'plugin_id', 'gateway', 'trade_no', 'amount', 'balance_part', 'refunded_amount',
  'currency', 'status', 'settlement', 'paid_source', 'notify_id', 'qr_code_url', 'expires_at', 'paid_at', 'closed_at', 'trace_id',
  'created_at', 'updated_at',
]);

export const REFUND_COLUMNS = columnsOf<RefundRecord>()([
  'id', 'refund_no', 'user_id', 'invoice_id', 'refund_invoice_id', 'payment_id', 'amount', 'balance_part', 'third_party_part',
  'currency', 'refund_method', 'status', 'reason', 'scope', 'out_request_no', 'failure_reason', 'operator_type', 'operator_id',
  'operator_name', 'refunded_at', 'trace_id', 'created_at', 'updated_at',
]);

/** A model row: the record, with the columns the database fills in optional on create. */
type RowOf<R, Filled extends keyof R> = { [K in keyof R]: K extends Filled ? CreationOptional<R[K]> : R[K] };

export interface InvoiceRow
  extends Model<InferAttributes<InvoiceRow>, InferCreationAttributes<InvoiceRow>>,
    RowOf<InvoiceRecord, 'id' | 'invoice_no' | 'balance_amount' | 'third_party_amount' | 'refunded_amount' | 'currency' | 'payment_channel' | 'origin_invoice_id' | 'service_id' | 'payload' | 'due_at' | 'paid_at' | 'dispatched_at' | 'cancelled_at' | 'remark' | 'operator_type' | 'operator_id' | 'operator_name' | 'trace_id' | 'created_at' | 'updated_at'> {}

export interface InvoiceItemRow extends Model<InferAttributes<InvoiceItemRow>, InferCreationAttributes<InvoiceItemRow>> {
  id: CreationOptional<number>;
  invoice_id: number;
  item_key: CreationOptional<string>;
  description: string;
  unit_amount: Money;
  quantity: number;
  amount: Money;
  sort_order: CreationOptional<number>;
  created_at: CreationOptional<Date>;
}

export interface OrderRow
  extends Model<InferAttributes<OrderRow>, InferCreationAttributes<OrderRow>>,
    RowOf<OrderRecord, 'id' | 'order_no' | 'service_id' | 'currency' | 'billing_period' | 'quantity' | 'config' | 'paid_at' | 'completed_at' | 'created_at' | 'updated_at'> {}

export interface PaymentRow
  extends Model<InferAttributes<PaymentRow>, InferCreationAttributes<PaymentRow>>,
    RowOf<PaymentRecord, 'id' | 'payment_no' | 'trade_no' | 'balance_part' | 'refunded_amount' | 'currency' | 'settlement' | 'paid_source' | 'notify_id' | 'qr_code_url' | 'paid_at' | 'closed_at' | 'trace_id' | 'created_at' | 'updated_at'> {}

export interface AccountTransactionRow extends Model<InferAttributes<AccountTransactionRow>, InferCreationAttributes<AccountTransactionRow>> {
  id: CreationOptional<number>;
  user_id: number;
  seq: number;
  type: TransactionType;
  amount: Money;
  balance_before: Money;
  balance_after: Money;
  currency: CreationOptional<'CNY'>;
  invoice_id: number | null;
  payment_id: number | null;
  refund_id: number | null;
  idempotency_key: string;
  remark: CreationOptional<string>;
  operator_type: ActorType;
  operator_id: number | null;
  operator_name: CreationOptional<string>;
  trace_id: CreationOptional<string>;
  created_at: CreationOptional<Date>;
}

export interface RechargeRecordRow extends Model<InferAttributes<RechargeRecordRow>, InferCreationAttributes<RechargeRecordRow>> {
  id: CreationOptional<number>;
  record_no: CreationOptional<string>;
  user_id: number;
  order_id: number | null;
  invoice_id: number;
  payment_id: number | null;
  account_transaction_id: number | null;
  refund_id: number | null;
  origin_recharge_record_id: number | null;
  scene: RechargeScene;
  direction: RechargeDirection;
  entry_type: RechargeEntryType;
  amount: Money;
  offset_amount: CreationOptional<Money>;
  currency: CreationOptional<'CNY'>;
  remark: CreationOptional<string>;
  reason: CreationOptional<string>;
  operator_type: ActorType;
  operator_id: number | null;
  operator_name: CreationOptional<string>;
  trace_id: CreationOptional<string>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export interface RefundRow
  extends Model<InferAttributes<RefundRow>, InferCreationAttributes<RefundRow>>,
    RowOf<RefundRecord, 'id' | 'refund_no' | 'refund_invoice_id' | 'currency' | 'reason' | 'scope' | 'out_request_no' | 'failure_reason' | 'operator_name' | 'refunded_at' | 'trace_id' | 'created_at' | 'updated_at'> {}

// Attribute definitions are built fresh for every column: Sequelize writes into them (`field`, …).
const id = () => ({ type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true });
const money = (allowNull = false) => ({ type: DataTypes.DECIMAL(14, 2), allowNull });
const currency = () => ({ type: DataTypes.STRING(3), allowNull: false, defaultValue: 'CNY' });
const text = (length: number) => ({ type: DataTypes.STRING(length), allowNull: false, defaultValue: '' });
const nullableInt = () => ({ type: DataTypes.INTEGER, allowNull: true });
const nullableDate = () => ({ type: DataTypes.DATE, allowNull: true });
const operator = () => ({
  operator_type: { type: DataTypes.STRING(16), allowNull: false },
  operator_id: nullableInt(),
  operator_name: text(64),
});
const timestamps = () => ({ created_at: DataTypes.DATE, updated_at: DataTypes.DATE });

/**
 * The money tables of migration 0004. Writes that move money go through the domain/billing
 * functions (raw SQL under row locks); the models serve reads, lists and tests.
 */
export function defineBillingModels(sequelize: Sequelize) {
  const UserAccount = sequelize.define<UserAccountRow>(
    'UserAccount',
    {
      user_id: { type: DataTypes.INTEGER, primaryKey: true },
      balance: { ...money(), defaultValue: '0.00' },
      last_seq: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      currency: currency(),
      ...timestamps(),
    },
    { tableName: 'user_accounts' },
  );
  const Invoice = sequelize.define<InvoiceRow>(
    'Invoice',
    {
      id: id(),
      invoice_no: { type: DataTypes.STRING(32), allowNull: false, unique: true },
      user_id: { type: DataTypes.INTEGER, allowNull: false },
      type: { type: DataTypes.STRING(24), allowNull: false },
      status: { type: DataTypes.STRING(24), allowNull: false },
      subject: { type: DataTypes.STRING(128), allowNull: false },
      amount: money(),
      balance_amount: { ...money(), defaultValue: '0.00' },
      third_party_amount: { ...money(), defaultValue: '0.00' },
      refunded_amount: { ...money(), defaultValue: '0.00' },
      currency: currency(),
      payment_channel: { type: DataTypes.STRING(16), allowNull: true },
      origin_invoice_id: nullableInt(),
      service_id: nullableInt(),
      payload: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      due_at: nullableDate(),
      paid_at: nullableDate(),
      dispatched_at: nullableDate(),
      cancelled_at: nullableDate(),
      remark: text(255),
      operator_type: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'user' },
      operator_id: nullableInt(),
      operator_name: text(64),
      trace_id: text(64),
      ...timestamps(),
    },
    { tableName: 'invoices' },
  );
  const InvoiceItem = sequelize.define<InvoiceItemRow>(
    'InvoiceItem',
    {
      id: id(),
      invoice_id: { type: DataTypes.INTEGER, allowNull: false },
      item_key: text(64),
      description: { type: DataTypes.STRING(255), allowNull: false },
      unit_amount: money(),
      quantity: { type: DataTypes.INTEGER, allowNull: false },
      amount: money(),
      sort_order: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      created_at: DataTypes.DATE,
    },
    { tableName: 'invoice_items', updatedAt: false },
  );
  const Order = sequelize.define<OrderRow>(
    'Order',
    {
      id: id(),
      order_no: { type: DataTypes.STRING(32), allowNull: false, unique: true },
      user_id: { type: DataTypes.INTEGER, allowNull: false },
      invoice_id: { type: DataTypes.INTEGER, allowNull: false, unique: true },
      type: { type: DataTypes.STRING(24), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      product_id: nullableInt(),
      service_id: nullableInt(),
      amount: money(),
      currency: currency(),
      billing_period: text(32),
      quantity: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
      config: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      paid_at: nullableDate(),
      completed_at: nullableDate(),
      ...timestamps(),
    },
    { tableName: 'orders' },
  );
  const Payment = sequelize.define<PaymentRow>(
    'Payment',
    {
      id: id(),
      payment_no: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      invoice_id: { type: DataTypes.INTEGER, allowNull: false },
      user_id: { type: DataTypes.INTEGER, allowNull: false },
      plugin_id: nullableInt(),
      gateway: { type: DataTypes.STRING(64), allowNull: false },
      trade_no: { type: DataTypes.STRING(64), allowNull: true },
      amount: money(),
      balance_part: { ...money(), defaultValue: '0.00' },
      refunded_amount: { ...money(), defaultValue: '0.00' },
      currency: currency(),
      status: { type: DataTypes.STRING(24), allowNull: false },
      settlement: { type: DataTypes.STRING(24), allowNull: true },
      paid_source: { type: DataTypes.STRING(16), allowNull: true },
      notify_id: { type: DataTypes.STRING(64), allowNull: true },
      qr_code_url: text(512),
      expires_at: { type: DataTypes.DATE, allowNull: false },
      paid_at: nullableDate(),
      closed_at: nullableDate(),
      trace_id: text(64),
      ...timestamps(),
    },
    { tableName: 'payments' },
  );
  const AccountTransaction = sequelize.define<AccountTransactionRow>(
    'AccountTransaction',
    {
      id: id(),
      user_id: { type: DataTypes.INTEGER, allowNull: false },
      seq: { type: DataTypes.INTEGER, allowNull: false },
      type: { type: DataTypes.STRING(24), allowNull: false },
      amount: money(),
      balance_before: money(),
      balance_after: money(),
      currency: currency(),
      invoice_id: nullableInt(),
      payment_id: nullableInt(),
      refund_id: nullableInt(),
      idempotency_key: { type: DataTypes.STRING(96), allowNull: false, unique: true },
      remark: text(255),
      ...operator(),
      trace_id: text(64),
      created_at: DataTypes.DATE,
    },
    { tableName: 'account_transactions', updatedAt: false },
  );
  const RechargeRecord = sequelize.define<RechargeRecordRow>(
    'RechargeRecord',
    {
      id: id(),
      record_no: { type: DataTypes.STRING(32), allowNull: false, unique: true },
      user_id: { type: DataTypes.INTEGER, allowNull: false },
      order_id: nullableInt(),
      invoice_id: { type: DataTypes.INTEGER, allowNull: false },
      payment_id: nullableInt(),
      account_transaction_id: nullableInt(),
      refund_id: nullableInt(),
      origin_recharge_record_id: nullableInt(),
      scene: { type: DataTypes.STRING(24), allowNull: false },
      direction: { type: DataTypes.STRING(8), allowNull: false },
      entry_type: { type: DataTypes.STRING(16), allowNull: false },
      amount: money(),
      offset_amount: { ...money(), defaultValue: '0.00' },
      currency: currency(),
      remark: text(255),
      reason: text(255),
      ...operator(),
      trace_id: text(64),
      ...timestamps(),
    },
    { tableName: 'recharge_records' },
  );
  const Refund = sequelize.define<RefundRow>(
    'Refund',
    {
      id: id(),
      refund_no: { type: DataTypes.STRING(32), allowNull: false, unique: true },
      user_id: { type: DataTypes.INTEGER, allowNull: false },
      invoice_id: { type: DataTypes.INTEGER, allowNull: false },
      refund_invoice_id: nullableInt(),
      payment_id: nullableInt(),
      amount: money(),
      balance_part: money(),
      third_party_part: money(),
      currency: currency(),
      refund_method: { type: DataTypes.STRING(16), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      reason: text(255),
      scope: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
      out_request_no: { type: DataTypes.STRING(64), allowNull: true, unique: true },
      failure_reason: text(255),
      ...operator(),
      refunded_at: nullableDate(),
      trace_id: text(64),
      ...timestamps(),
    },
    { tableName: 'refunds' },
  );
  return { UserAccount, Invoice, InvoiceItem, Order, Payment, AccountTransaction, RechargeRecord, Refund };
}

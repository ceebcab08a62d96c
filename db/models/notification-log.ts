import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';

export const NOTIFICATION_KINDS = [
  'renewal_due',
  'service_overdue',
  'service_suspended',
  'service_terminated',
  'invoice_unpaid',
  'ticket_staff_reply',
  'ticket_customer_reply',
  'ticket_close_reminder',
  'ticket_auto_closed',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const NOTIFICATION_ENTITY_TYPES = ['service', 'invoice', 'ticket'] as const;
export type NotificationEntityType = (typeof NOTIFICATION_ENTITY_TYPES)[number];

export const NOTIFICATION_CHANNELS = ['mail', 'sms'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

/**
 * `sending`: claimed, the plugin is being (or was, before a crash) called: never sent again.
 * `sent`: the plugin confirmed. `failed`: the plugin answered that it did not send (retried on a
 * later run up to the attempt limit). `unknown`: the outcome cannot be known (timeout, or a claim
 * left `sending` by a crash): never sent again.
 */
export const NOTIFICATION_STATUSES = ['sending', 'sent', 'failed', 'unknown'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

export interface NotificationLogRow extends Model<InferAttributes<NotificationLogRow>, InferCreationAttributes<NotificationLogRow>> {
  id: CreationOptional<number>;
  kind: NotificationKind;
  channel: NotificationChannel;
  entity_type: NotificationEntityType;
  entity_id: number;
  /** What makes one notice distinct for its entity (a due date and threshold, a suspension time). */
  occasion: string;
  user_id: number;
  /** The address or phone number, masked. */
  recipient: CreationOptional<string>;
  subject: CreationOptional<string>;
  status: NotificationStatus;
  attempts: CreationOptional<number>;
  plugin_id: CreationOptional<number | null>;
  provider_message_id: CreationOptional<string | null>;
  error: CreationOptional<string | null>;
  task_run_id: CreationOptional<number | null>;
  sent_at: CreationOptional<Date | null>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export function defineNotificationLog(sequelize: Sequelize) {
  return sequelize.define<NotificationLogRow>(
    'NotificationLog',
    {
      id: {
        type: DataTypes.BIGINT,
        primaryKey: true,
        autoIncrement: true,
        get(this: NotificationLogRow) {
          return Number(this.getDataValue('id'));
        },
      },
      kind: { type: DataTypes.STRING(32), allowNull: false },
      channel: { type: DataTypes.STRING(8), allowNull: false },
      entity_type: { type: DataTypes.STRING(16), allowNull: false },
      entity_id: { type: DataTypes.INTEGER, allowNull: false },
      occasion: { type: DataTypes.STRING(64), allowNull: false },
      user_id: { type: DataTypes.INTEGER, allowNull: false },
      recipient: { type: DataTypes.STRING(191), allowNull: false, defaultValue: '' },
      subject: { type: DataTypes.STRING(200), allowNull: false, defaultValue: '' },
      status: { type: DataTypes.STRING(16), allowNull: false },
      attempts: { type: DataTypes.SMALLINT, allowNull: false, defaultValue: 1 },
      plugin_id: { type: DataTypes.INTEGER, allowNull: true },
      provider_message_id: { type: DataTypes.STRING(191), allowNull: true },
      error: { type: DataTypes.STRING(255), allowNull: true },
      task_run_id: { type: DataTypes.INTEGER, allowNull: true },
      sent_at: { type: DataTypes.DATE, allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'notification_log' },
  );
}

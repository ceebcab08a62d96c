import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';

/** Why a console relay ended (`vnc_sessions.close_reason`). */
export type VncCloseReason = 'browser_closed' | 'upstream_closed' | 'idle' | 'max_duration' | 'upstream_failed' | 'protocol_error' | 'shutdown';

/** One browser console session (migration 0014): tokens as SHA-256 only. */
export interface VncSessionRow extends Model<InferAttributes<VncSessionRow>, InferCreationAttributes<VncSessionRow>> {
  id: CreationOptional<number>;
  service_id: number;
  user_id: number;
  client_ip: string;
  public_token_hash: string;
  public_expires_at: Date;
  public_consumed_at: CreationOptional<Date | null>;
  relay_token_hash: CreationOptional<string | null>;
  relay_expires_at: CreationOptional<Date | null>;
  relay_consumed_at: CreationOptional<Date | null>;
  ended_at: CreationOptional<Date | null>;
  close_reason: CreationOptional<VncCloseReason | null>;
  bytes_to_browser: CreationOptional<number>;
  bytes_from_browser: CreationOptional<number>;
  created_at: CreationOptional<Date>;
}

export function defineVncSession(sequelize: Sequelize) {
  const bigint = (name: 'id' | 'bytes_to_browser' | 'bytes_from_browser') => ({
    type: DataTypes.BIGINT,
    get(this: VncSessionRow) {
      return Number(this.getDataValue(name));
    },
  });
  return sequelize.define<VncSessionRow>(
    'VncSession',
    {
      id: { ...bigint('id'), primaryKey: true, autoIncrement: true },
      service_id: { type: DataTypes.INTEGER, allowNull: false },
      user_id: { type: DataTypes.INTEGER, allowNull: false },
      client_ip: { type: DataTypes.STRING(64), allowNull: false },
      public_token_hash: { type: DataTypes.CHAR(64), allowNull: false },
      public_expires_at: { type: DataTypes.DATE, allowNull: false },
      public_consumed_at: { type: DataTypes.DATE, allowNull: true },
      relay_token_hash: { type: DataTypes.CHAR(64), allowNull: true },
      relay_expires_at: { type: DataTypes.DATE, allowNull: true },
      relay_consumed_at: { type: DataTypes.DATE, allowNull: true },
      ended_at: { type: DataTypes.DATE, allowNull: true },
      close_reason: { type: DataTypes.STRING(32), allowNull: true },
      bytes_to_browser: { ...bigint('bytes_to_browser'), allowNull: false, defaultValue: 0 },
      bytes_from_browser: { ...bigint('bytes_from_browser'), allowNull: false, defaultValue: 0 },
      created_at: DataTypes.DATE,
    },
    { tableName: 'vnc_sessions', timestamps: false },
  );
}

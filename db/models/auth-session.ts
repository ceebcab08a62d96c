import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';

export type Surface = 'admin' | 'client';

export const SESSION_SCOPES = ['full', 'enrol'] as const;
export type SessionScope = (typeof SESSION_SCOPES)[number];

export interface AuthSessionRow extends Model<InferAttributes<AuthSessionRow>, InferCreationAttributes<AuthSessionRow>> {
  id: string;
  surface: Surface;
  subject_id: number;
  ip: string;
  user_agent: string;
  expires_at: Date;
  /** 'enrol': a login that must first enrol a second factor may only do that (and read itself, log out). */
  scope: CreationOptional<SessionScope>;
  /** When this session last proved a second factor (login code, confirmation, step-up verify). */
  second_factor_at: CreationOptional<Date | null>;
  revoked_at: CreationOptional<Date | null>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export interface LoginLogRow extends Model<InferAttributes<LoginLogRow>, InferCreationAttributes<LoginLogRow>> {
  id: CreationOptional<number>;
  surface: Surface;
  account: string;
  subject_id: number | null;
  ip: string;
  /** What the login throttle counts by: the IPv4 address or the IPv6 prefix (see domain/auth/login-throttle.ts). */
  address_key: CreationOptional<string>;
  user_agent: string;
  success: boolean;
  reason: string;
  created_at: CreationOptional<Date>;
}

export function defineAuthSession(sequelize: Sequelize) {
  return sequelize.define<AuthSessionRow>(
    'AuthSession',
    {
      id: { type: DataTypes.UUID, primaryKey: true },
      surface: { type: DataTypes.STRING(16), allowNull: false },
      subject_id: { type: DataTypes.INTEGER, allowNull: false },
      ip: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      user_agent: { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' },
      expires_at: { type: DataTypes.DATE, allowNull: false },
      scope: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'full' },
      second_factor_at: { type: DataTypes.DATE, allowNull: true },
      revoked_at: { type: DataTypes.DATE, allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'auth_sessions' },
  );
}

export function defineLoginLog(sequelize: Sequelize) {
  return sequelize.define<LoginLogRow>(
    'LoginLog',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      surface: { type: DataTypes.STRING(16), allowNull: false },
      account: { type: DataTypes.STRING(191), allowNull: false },
      subject_id: { type: DataTypes.INTEGER, allowNull: true },
      ip: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      address_key: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      user_agent: { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' },
      success: { type: DataTypes.BOOLEAN, allowNull: false },
      reason: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      created_at: DataTypes.DATE,
    },
    { tableName: 'login_logs', updatedAt: false },
  );
}

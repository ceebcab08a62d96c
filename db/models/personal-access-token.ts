import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';
import type { ActorType } from '../../lib/actor.js';

/**
 * What a personal access token may do (docs/security.md "Personal access tokens"): `read` the GET routes
 * of the client surface, `purchase` (orders, invoices, payments, renewals, traffic packages,
 * upgrades), `console` (console, VNC, power and other actions on a service). Stored: never rename.
 */
export const TOKEN_SCOPES = ['read', 'purchase', 'console'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export interface PersonalAccessTokenRow
  extends Model<InferAttributes<PersonalAccessTokenRow>, InferCreationAttributes<PersonalAccessTokenRow>> {
  id: CreationOptional<number>;
  user_id: number;
  name: string;
  /** The public part of the token (16 hex characters), which finds the row. */
  key_id: string;
  /** SHA-256 of the secret part; the secret itself is never stored. */
  secret_hash: Buffer;
  scopes: TokenScope[];
  expires_at: Date;
  created_ip: CreationOptional<string>;
  last_used_at: CreationOptional<Date | null>;
  last_used_ip: CreationOptional<string | null>;
  revoked_at: CreationOptional<Date | null>;
  revoked_by_type: CreationOptional<ActorType | null>;
  revoked_by_id: CreationOptional<number | null>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export function definePersonalAccessToken(sequelize: Sequelize) {
  return sequelize.define<PersonalAccessTokenRow>(
    'PersonalAccessToken',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      user_id: { type: DataTypes.INTEGER, allowNull: false },
      name: { type: DataTypes.STRING(64), allowNull: false },
      key_id: { type: DataTypes.CHAR(16), allowNull: false, unique: true },
      secret_hash: { type: DataTypes.BLOB, allowNull: false },
      scopes: { type: DataTypes.ARRAY(DataTypes.STRING(16)), allowNull: false },
      expires_at: { type: DataTypes.DATE, allowNull: false },
      created_ip: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      last_used_at: { type: DataTypes.DATE, allowNull: true },
      last_used_ip: { type: DataTypes.STRING(64), allowNull: true },
      revoked_at: { type: DataTypes.DATE, allowNull: true },
      revoked_by_type: { type: DataTypes.STRING(16), allowNull: true },
      revoked_by_id: { type: DataTypes.INTEGER, allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'personal_access_tokens' },
  );
}

import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';
import type { Surface } from './auth-session.js';

/** A TOTP credential of an admin or a user; unconfirmed until its first code is checked. */
export interface TwoFactorCredentialRow
  extends Model<InferAttributes<TwoFactorCredentialRow>, InferCreationAttributes<TwoFactorCredentialRow>> {
  id: CreationOptional<number>;
  surface: Surface;
  subject_id: number;
  /** `lib/crypto.ts` secret box; never answered except in the enrolment's one-time answer. */
  secret_sealed: string;
  confirmed_at: CreationOptional<Date | null>;
  /** Time step (Unix seconds / 30) of the last accepted code; only a later step is accepted. */
  last_used_step: CreationOptional<string>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export interface TwoFactorRecoveryCodeRow
  extends Model<InferAttributes<TwoFactorRecoveryCodeRow>, InferCreationAttributes<TwoFactorRecoveryCodeRow>> {
  id: CreationOptional<number>;
  credential_id: number;
  /** Keyed SHA-256 (HMAC) of the normalised code. */
  code_hash: string;
  used_at: CreationOptional<Date | null>;
  created_at: CreationOptional<Date>;
}

/** Between the password step and the code step of a login: single use, short-lived. */
export interface TwoFactorChallengeRow
  extends Model<InferAttributes<TwoFactorChallengeRow>, InferCreationAttributes<TwoFactorChallengeRow>> {
  /** SHA-256 of the challenge token (the token itself is only in the login answer). */
  token_hash: string;
  surface: Surface;
  subject_id: number;
  account: string;
  expires_at: Date;
  used_at: CreationOptional<Date | null>;
  created_at: CreationOptional<Date>;
}

export function defineTwoFactorModels(sequelize: Sequelize) {
  const TwoFactorCredential = sequelize.define<TwoFactorCredentialRow>(
    'TwoFactorCredential',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      surface: { type: DataTypes.STRING(16), allowNull: false },
      subject_id: { type: DataTypes.INTEGER, allowNull: false },
      secret_sealed: { type: DataTypes.TEXT, allowNull: false },
      confirmed_at: { type: DataTypes.DATE, allowNull: true },
      last_used_step: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'two_factor_credentials' },
  );
  const TwoFactorRecoveryCode = sequelize.define<TwoFactorRecoveryCodeRow>(
    'TwoFactorRecoveryCode',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      credential_id: { type: DataTypes.INTEGER, allowNull: false },
      code_hash: { type: DataTypes.CHAR(64), allowNull: false },
      used_at: { type: DataTypes.DATE, allowNull: true },
      created_at: DataTypes.DATE,
    },
    { tableName: 'two_factor_recovery_codes', updatedAt: false },
  );
  const TwoFactorChallenge = sequelize.define<TwoFactorChallengeRow>(
    'TwoFactorChallenge',
    {
      token_hash: { type: DataTypes.CHAR(64), primaryKey: true },
      surface: { type: DataTypes.STRING(16), allowNull: false },
      subject_id: { type: DataTypes.INTEGER, allowNull: false },
      account: { type: DataTypes.STRING(191), allowNull: false },
      expires_at: { type: DataTypes.DATE, allowNull: false },
      used_at: { type: DataTypes.DATE, allowNull: true },
      created_at: DataTypes.DATE,
    },
    { tableName: 'two_factor_challenges', updatedAt: false },
  );
  return { TwoFactorCredential, TwoFactorRecoveryCode, TwoFactorChallenge };
}

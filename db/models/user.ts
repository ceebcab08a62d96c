import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';

export interface UserRow extends Model<InferAttributes<UserRow>, InferCreationAttributes<UserRow>> {
  id: CreationOptional<number>;
  email: string | null;
  phone: string | null;
  nickname: string;
  password_hash: string;
  status: 'active' | 'disabled';
  email_verified_at: CreationOptional<Date | null>;
  is_verified: CreationOptional<number>;
  verification_status: CreationOptional<number | null>;
  last_login_at: CreationOptional<Date | null>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export function defineUser(sequelize: Sequelize) {
  return sequelize.define<UserRow>(
    'User',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      email: { type: DataTypes.STRING(191), allowNull: true, unique: true },
      phone: { type: DataTypes.STRING(32), allowNull: true, unique: true },
      nickname: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      password_hash: { type: DataTypes.STRING(255), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' },
      email_verified_at: { type: DataTypes.DATE, allowNull: true },
      is_verified: { type: DataTypes.SMALLINT, allowNull: false, defaultValue: 0 },
      verification_status: { type: DataTypes.SMALLINT, allowNull: true },
      last_login_at: { type: DataTypes.DATE, allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'users' },
  );
}

import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type NonAttribute,
  type Sequelize,
} from 'sequelize';

export interface AdminRoleRow extends Model<InferAttributes<AdminRoleRow>, InferCreationAttributes<AdminRoleRow>> {
  id: CreationOptional<number>;
  code: string;
  name: string;
  permissions: string[];
  is_super: boolean;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export interface AdminRow extends Model<InferAttributes<AdminRow>, InferCreationAttributes<AdminRow>> {
  id: CreationOptional<number>;
  username: string;
  display_name: string;
  password_hash: string;
  role_id: number;
  status: 'active' | 'disabled';
  last_login_at: Date | null;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
  role?: NonAttribute<AdminRoleRow>;
}

export function defineAdminRole(sequelize: Sequelize) {
  return sequelize.define<AdminRoleRow>(
    'AdminRole',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      code: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      name: { type: DataTypes.STRING(64), allowNull: false },
      permissions: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
      is_super: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'admin_roles' },
  );
}

export function defineAdmin(sequelize: Sequelize) {
  return sequelize.define<AdminRow>(
    'Admin',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      username: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      display_name: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      password_hash: { type: DataTypes.STRING(255), allowNull: false },
      role_id: { type: DataTypes.INTEGER, allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' },
      last_login_at: { type: DataTypes.DATE, allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'admins' },
  );
}

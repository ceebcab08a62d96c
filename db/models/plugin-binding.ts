import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type NonAttribute,
  type Sequelize,
} from 'sequelize';
import type { PluginDomain } from '../../lib/plugin-manifest.js';
import type { PluginRow } from './plugin.js';

export const PLUGIN_BINDING_TYPES = ['default', 'supplier', 'product', 'service'] as const;
export type PluginBindingType = (typeof PLUGIN_BINDING_TYPES)[number];

/** `default` binds a scene of a domain (`scene`); the others bind one business object (`binding_id`). */
export interface PluginBindingRow extends Model<InferAttributes<PluginBindingRow>, InferCreationAttributes<PluginBindingRow>> {
  id: CreationOptional<number>;
  plugin_id: number;
  domain: PluginDomain;
  binding_type: PluginBindingType;
  scene: string | null;
  binding_id: number | null;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
  plugin?: NonAttribute<PluginRow>;
}

export function definePluginBinding(sequelize: Sequelize) {
  return sequelize.define<PluginBindingRow>(
    'PluginBinding',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      plugin_id: { type: DataTypes.INTEGER, allowNull: false },
      domain: { type: DataTypes.STRING(32), allowNull: false },
      binding_type: { type: DataTypes.STRING(16), allowNull: false },
      scene: { type: DataTypes.STRING(64), allowNull: true },
      binding_id: { type: DataTypes.INTEGER, allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'plugin_bindings' },
  );
}

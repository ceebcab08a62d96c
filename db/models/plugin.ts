import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';
import type { PluginDomain, PluginManifest } from '../../lib/plugin-manifest.js';

export type PluginStatus = 'installed' | 'enabled' | 'disabled';

export interface PluginRow extends Model<InferAttributes<PluginRow>, InferCreationAttributes<PluginRow>> {
  id: CreationOptional<number>;
  domain: PluginDomain;
  slug: string;
  key: string;
  name: string;
  version: string;
  status: PluginStatus;
  /** Snapshot of the manifest taken at install. */
  manifest: PluginManifest;
  /** Non-secret values only. */
  config: CreationOptional<Record<string, unknown>>;
  /** Field key → sealed string (secret box). */
  secrets: CreationOptional<Record<string, string>>;
  installed_at: CreationOptional<Date>;
  enabled_at: CreationOptional<Date | null>;
  disabled_at: CreationOptional<Date | null>;
  created_at: CreationOptional<Date>;
  updated_at: CreationOptional<Date>;
}

export function definePlugin(sequelize: Sequelize) {
  return sequelize.define<PluginRow>(
    'Plugin',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      domain: { type: DataTypes.STRING(32), allowNull: false },
      slug: { type: DataTypes.STRING(64), allowNull: false },
      key: { type: DataTypes.STRING(64), allowNull: false },
      name: { type: DataTypes.STRING(128), allowNull: false },
      version: { type: DataTypes.STRING(32), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'installed' },
      manifest: { type: DataTypes.JSONB, allowNull: false },
      config: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      secrets: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      installed_at: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
      enabled_at: { type: DataTypes.DATE, allowNull: true },
      disabled_at: { type: DataTypes.DATE, allowNull: true },
      created_at: DataTypes.DATE,
      updated_at: DataTypes.DATE,
    },
    { tableName: 'plugins' },
  );
}

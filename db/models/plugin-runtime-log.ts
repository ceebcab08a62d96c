import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';
import type { ActorType } from '../../lib/actor.js';
import type { PluginDomain } from '../../lib/plugin-manifest.js';

export const PLUGIN_RUN_STATUSES = ['success', 'failure', 'timeout'] as const;
export type PluginRunStatus = (typeof PLUGIN_RUN_STATUSES)[number];

/** One plugin action: who, what, how long, how it ended; summaries are redacted and truncated. */
export interface PluginRuntimeLogRow extends Model<InferAttributes<PluginRuntimeLogRow>, InferCreationAttributes<PluginRuntimeLogRow>> {
  id: CreationOptional<number>;
  domain: PluginDomain;
  plugin_id: number | null;
  plugin_slug: string;
  binding_id: number | null;
  actor_type: ActorType;
  actor_id: number | null;
  action: string;
  status: PluginRunStatus;
  duration_ms: number;
  message: string;
  trace_id: string;
  request_summary: string;
  response_summary: string;
  error_detail: string;
  created_at: CreationOptional<Date>;
}

export function definePluginRuntimeLog(sequelize: Sequelize) {
  return sequelize.define<PluginRuntimeLogRow>(
    'PluginRuntimeLog',
    {
      // BIGSERIAL: pg returns it as a string unless parsed; ids stay far below 2^53.
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true, get() { return Number(this.getDataValue('id')); } },
      domain: { type: DataTypes.STRING(32), allowNull: false },
      plugin_id: { type: DataTypes.INTEGER, allowNull: true },
      plugin_slug: { type: DataTypes.STRING(64), allowNull: false },
      binding_id: { type: DataTypes.INTEGER, allowNull: true },
      actor_type: { type: DataTypes.STRING(16), allowNull: false },
      actor_id: { type: DataTypes.INTEGER, allowNull: true },
      action: { type: DataTypes.STRING(128), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      duration_ms: { type: DataTypes.INTEGER, allowNull: false },
      message: { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' },
      trace_id: { type: DataTypes.STRING(64), allowNull: false, defaultValue: '' },
      request_summary: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      response_summary: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      error_detail: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      created_at: DataTypes.DATE,
    },
    { tableName: 'plugin_runtime_logs', updatedAt: false },
  );
}

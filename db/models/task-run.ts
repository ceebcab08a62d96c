import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';

export const TASK_RUN_STATUSES = ['running', 'succeeded', 'failed', 'skipped'] as const;
export type TaskRunStatus = (typeof TASK_RUN_STATUSES)[number];

/** `schedule`: a Temporal Schedule (or a task its hourly/daily run started); `heartbeat`: due at a heartbeat slot. */
export const TASK_RUN_TRIGGERS = ['schedule', 'heartbeat', 'manual', 'automation'] as const;
export type TaskRunTriggerValue = (typeof TASK_RUN_TRIGGERS)[number];

export interface TaskRunRow extends Model<InferAttributes<TaskRunRow>, InferCreationAttributes<TaskRunRow>> {
  id: CreationOptional<number>;
  task_key: string;
  task_title: CreationOptional<string>;
  plugin_id: CreationOptional<number | null>;
  plugin_slug: CreationOptional<string | null>;
  trigger: TaskRunTriggerValue;
  workflow_id: string;
  run_id: string;
  status: TaskRunStatus;
  /** The task's summary array or object (plugin tasks: the plugin's own summary, redacted). */
  summary: CreationOptional<Record<string, unknown> | unknown[] | null>;
  error: CreationOptional<string | null>;
  scheduled_at: Date | null;
  slot_at: CreationOptional<Date | null>;
  deadline_at: CreationOptional<Date | null>;
  started_at: Date;
  finished_at: CreationOptional<Date | null>;
}

export function defineTaskRun(sequelize: Sequelize) {
  return sequelize.define<TaskRunRow>(
    'TaskRun',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      task_key: { type: DataTypes.STRING(128), allowNull: false },
      task_title: { type: DataTypes.STRING(128), allowNull: false, defaultValue: '' },
      plugin_id: { type: DataTypes.INTEGER, allowNull: true },
      plugin_slug: { type: DataTypes.STRING(64), allowNull: true },
      trigger: { type: DataTypes.STRING(16), allowNull: false },
      workflow_id: { type: DataTypes.STRING(255), allowNull: false },
      run_id: { type: DataTypes.STRING(64), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      summary: { type: DataTypes.JSONB, allowNull: true },
      error: { type: DataTypes.TEXT, allowNull: true },
      scheduled_at: { type: DataTypes.DATE, allowNull: true },
      slot_at: { type: DataTypes.DATE, allowNull: true },
      deadline_at: { type: DataTypes.DATE, allowNull: true },
      started_at: { type: DataTypes.DATE, allowNull: false },
      finished_at: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: 'task_runs', timestamps: false },
  );
}

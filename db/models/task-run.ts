import {
  type CreationOptional,
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type Sequelize,
} from 'sequelize';

export type TaskRunStatus = 'running' | 'succeeded' | 'failed';

export interface TaskRunRow extends Model<InferAttributes<TaskRunRow>, InferCreationAttributes<TaskRunRow>> {
  id: CreationOptional<number>;
  task_key: string;
  trigger: 'schedule' | 'manual';
  workflow_id: string;
  run_id: string;
  status: TaskRunStatus;
  summary: CreationOptional<Record<string, unknown> | null>;
  error: CreationOptional<string | null>;
  scheduled_at: Date | null;
  started_at: Date;
  finished_at: CreationOptional<Date | null>;
}

export function defineTaskRun(sequelize: Sequelize) {
  return sequelize.define<TaskRunRow>(
    'TaskRun',
    {
      id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
      task_key: { type: DataTypes.STRING(128), allowNull: false },
      trigger: { type: DataTypes.STRING(16), allowNull: false },
      workflow_id: { type: DataTypes.STRING(255), allowNull: false },
      run_id: { type: DataTypes.STRING(64), allowNull: false },
      status: { type: DataTypes.STRING(16), allowNull: false },
      summary: { type: DataTypes.JSONB, allowNull: true },
      error: { type: DataTypes.TEXT, allowNull: true },
      scheduled_at: { type: DataTypes.DATE, allowNull: true },
      started_at: { type: DataTypes.DATE, allowNull: false },
      finished_at: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: 'task_runs', timestamps: false },
  );
}

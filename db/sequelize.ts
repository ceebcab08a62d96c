import pg from 'pg';
import { Sequelize } from 'sequelize';
import type { Logger } from '../lib/logger.js';
import { defineModels, type Models } from './models/index.js';

export type Database = {
  sequelize: Sequelize;
  models: Models;
  close(): Promise<void>;
};

export type DatabaseOptions = {
  url: string;
  poolMax?: number;
  logger?: Logger;
};

export function createDatabase(options: DatabaseOptions): Database {
  const sequelize = new Sequelize(options.url, {
    dialect: 'postgres',
    dialectModule: pg,
    logging: options.logger ? (sql) => options.logger?.trace({ sql }, 'sql') : false,
    pool: { max: options.poolMax ?? 10, min: 0, idle: 10_000, acquire: 30_000 },
    define: { underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' },
    timezone: '+00:00',
  });
  const models = defineModels(sequelize);
  return { sequelize, models, close: () => sequelize.close() };
}

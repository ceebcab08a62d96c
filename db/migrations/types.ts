import type { Sequelize } from 'sequelize';
import type { RunnableMigration } from 'umzug';

export type Migration = RunnableMigration<Sequelize> & { name: string };

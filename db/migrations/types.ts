import type { Sequelize } from 'sequelize';
import type { RunnableMigration } from 'umzug';

export type Migration = RunnableMigration<Sequelize> & {
  name: string;
  /**
   * The contract step of an earlier expand (docs/CONVENTIONS.md "Migrations: expand, then
   * contract"): the name of the migration whose release stopped reading what this one drops or
   * renames. Only such a migration may drop or rename a table or column.
   */
  contracts?: string;
};

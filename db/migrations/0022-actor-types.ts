import type { Migration } from './types.js';

/**
 * One vocabulary for "who did it" (`lib/actor.ts`: admin, user, system): plugin runtime logs
 * said `client` where every other table says `user`.
 */
export const migration0022ActorTypes: Migration = {
  name: '0022-actor-types',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE plugin_runtime_logs DROP CONSTRAINT plugin_runtime_logs_actor_type_check;
      UPDATE plugin_runtime_logs SET actor_type = 'user' WHERE actor_type = 'client';
      ALTER TABLE plugin_runtime_logs ADD CONSTRAINT plugin_runtime_logs_actor_type_check CHECK (actor_type IN ('admin', 'user', 'system'));
    `);
  },
  async down({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE plugin_runtime_logs DROP CONSTRAINT plugin_runtime_logs_actor_type_check;
      UPDATE plugin_runtime_logs SET actor_type = 'client' WHERE actor_type = 'user';
      ALTER TABLE plugin_runtime_logs ADD CONSTRAINT plugin_runtime_logs_actor_type_check CHECK (actor_type IN ('admin', 'client', 'system'));
    `);
  },
};

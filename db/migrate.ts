import type { Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';
import { migrations } from './migrations/index.js';

export function createMigrator(sequelize: Sequelize, log: (message: string) => void = () => {}) {
  return new Umzug<Sequelize>({
    migrations,
    context: sequelize,
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: {
      info: (m) => log(JSON.stringify(m)),
      warn: (m) => log(JSON.stringify(m)),
      error: (m) => log(JSON.stringify(m)),
      debug: () => {},
    },
  });
}

/**
 * Applies pending migrations under an advisory lock, so several API or worker instances
 * starting at once never run the same migration twice.
 */
export async function runMigrations(sequelize: Sequelize, log?: (message: string) => void): Promise<string[]> {
  const lockKey = 7_300_001;
  const connection = await sequelize.connectionManager.getConnection({ type: 'write' });
  const raw = connection as unknown as { query(sql: string, params?: unknown[]): Promise<unknown> };
  try {
    await raw.query('SELECT pg_advisory_lock($1)', [lockKey]);
    const applied = (await createMigrator(sequelize, log).up()).map((m) => m.name);
    if (applied.length > 0) await recordMigrations(sequelize, applied);
    return applied;
  } finally {
    await raw.query('SELECT pg_advisory_unlock($1)', [lockKey]).catch(() => {});
    sequelize.connectionManager.releaseConnection(connection);
  }
}

/** The system log's `migration` row (docs/operations.md "Logs"); best effort: the migrations stand regardless. */
async function recordMigrations(sequelize: Sequelize, applied: string[]): Promise<void> {
  await sequelize
    .query(`INSERT INTO system_logs (level, category, event, message, detail, process) VALUES ('info', 'migration', 'migrations.applied', $1, $2, 'migrate')`, {
      bind: [`已执行 ${applied.length} 个数据库迁移`.slice(0, 500), JSON.stringify({ applied: applied.slice(0, 100) })],
    })
    .catch(() => {});
}

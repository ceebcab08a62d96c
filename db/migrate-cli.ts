
import { createLogger } from '../lib/logger.js';
import { runMigrations } from './migrate.js';
import { createDatabase } from './sequelize.js';

// Migrations need only the database: no Temporal address or secret key.
const databaseUrl = process.env.DATABASE_URL;
const logger = createLogger(process.env.LOG_LEVEL ?? 'info', 'migrate');
if (!databaseUrl) {
  logger.fatal('missing environment variable: DATABASE_URL');
  process.exit(1);
}
const db = createDatabase({ url: databaseUrl, logger });
try {
  const applied = await runMigrations(db.sequelize, (m) => logger.info(m));
  logger.info({ applied }, applied.length ? 'migrations applied' : 'database already up to date');
} finally {
  await db.close();
}

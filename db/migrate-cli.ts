import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { runMigrations } from './migrate.js';
import { createDatabase } from './sequelize.js';

const config = loadConfig();
const logger = createLogger(config.logLevel, 'migrate');
const db = createDatabase({ url: config.databaseUrl, logger });
try {
  const applied = await runMigrations(db.sequelize, (m) => logger.info(m));
  logger.info({ applied }, applied.length ? 'migrations applied' : 'database already up to date');
} finally {
  await db.close();
}

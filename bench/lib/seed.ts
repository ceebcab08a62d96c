import { randomBytes } from 'node:crypto';
import { runMigrations } from '../../db/migrate.js';
import { seedDemoCatalogue } from '../../scripts/seeders/catalogue.js';
import { createDatabase } from '../../db/sequelize.js';
import { ensureSuperAdmin } from '../../domain/admins/bootstrap.js';
import { loadConfig } from '../../lib/config.js';
import { createSecretBox } from '../../lib/crypto.js';
import { createLogger } from '../../lib/logger.js';

export type AdminCredentials = { username: string; password: string };

/**
 * Migrates the bench database, creates the super admin, bulk-inserts `users` client accounts
 * (their password hash is a placeholder: nobody logs in as them) and seeds the demo catalogue
 * `catalogueCopies` times (independent copies, as the admin tree size test does).
 */
export async function seedBenchData(options: {
  databaseUrl: string;
  temporalAddress: string;
  secretKey: string;
  users: number;
  catalogueCopies: number;
}): Promise<AdminCredentials> {
  const config = loadConfig({
    NODE_ENV: 'development',
    DATABASE_URL: options.databaseUrl,
    TEMPORAL_ADDRESS: options.temporalAddress,
    APP_SECRET_KEY: options.secretKey,
  });
  const db = createDatabase({ url: config.databaseUrl, poolMax: 2 });
  try {
    await runMigrations(db.sequelize);
    const deps = { config, db, logger: createLogger('warn', 'bench'), secretBox: createSecretBox(config.secretKey) };
    const credentials = { username: 'bench-admin', password: randomBytes(18).toString('base64url') };
    await ensureSuperAdmin(deps, credentials);
    await db.models.User.bulkCreate(
      Array.from({ length: options.users }, (_, i) => ({
        email: `bench-user-${i + 1}@example.test`,
        phone: i % 2 === 0 ? `1380000${String(i + 1).padStart(4, '0')}` : null,
        nickname: `压测用户 ${i + 1}`,
        password_hash: 'bench-not-a-hash',
        status: i % 10 === 9 ? ('disabled' as const) : ('active' as const),
      })),
    );
    for (let copy = 0; copy < options.catalogueCopies; copy += 1) await seedDemoCatalogue(deps, { copy });
    return credentials;
  } finally {
    await db.close();
  }
}

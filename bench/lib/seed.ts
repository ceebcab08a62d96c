import { randomBytes } from 'node:crypto';
import { runMigrations } from '../../db/migrate.js';
import { seedDemoCatalogue } from '../../scripts/seeders/catalogue.js';
import { createDatabase } from '../../db/sequelize.js';
import { ensureSuperAdmin } from '../../domain/admins/bootstrap.js';
import { loadConfig } from '../../lib/config.js';
import { createSecretBox } from '../../lib/crypto.js';
import { createLogger } from '../../lib/logger.js';
import { issueSession } from '../../domain/auth/sessions.js';
import { userAudit } from '../../domain/billing/audit.js';
import { createPurchaseInvoice } from '../../domain/billing/invoices/create-purchase-invoice.js';
import { listDocuments } from '../../domain/billing/lists/list-documents.js';
import { BENCH_PRODUCT, QUOTE_SELECTION } from './catalogue-fixtures.js';
import { captureQueries, type CapturedQuery } from './query-plans.js';

export type AdminCredentials = { username: string; password: string };

/** Invoices of the signed-in client whose own list the client read pair loads (one page of 20 of them). */
export const CLIENT_INVOICES = 40;

/**
 * The signed-in client of the client read pair: a session token, and the statements the API sends
 * for `GET /api/v2/client/invoices?page=1&page_size=20` with their parameters (captured as pg sends
 * them, so the bare side runs them verbatim).
 */
export type BenchClient = { token: string; userId: number; invoices: number; statements: CapturedQuery[] };

export type BenchSeed = AdminCredentials & { client: BenchClient };

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
}): Promise<BenchSeed> {
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
    const client = await seedClient(deps);
    return { ...credentials, client };
  } finally {
    await db.close();
  }
}

/** The first seeded (active) user signed in, with `CLIENT_INVOICES` unpaid purchase invoices of the bench product. */
async function seedClient(deps: Parameters<typeof issueSession>[0]): Promise<BenchClient> {
  const user = await deps.db.models.User.findOne({ where: { email: 'bench-user-1@example.test' } });
  const product = await deps.db.models.Product.findOne({ where: { name: BENCH_PRODUCT }, order: [['id', 'ASC']] });
  if (!user || !product) throw new Error('bench client or product not seeded');
  for (let i = 0; i < CLIENT_INVOICES; i += 1) {
    await createPurchaseInvoice(deps, { userId: user.id, productId: product.id, billingPeriod: QUOTE_SELECTION.billing_period, config: QUOTE_SELECTION.config, quantity: 1 + (i % 3) }, userAudit(user.id, 'bench-seed'));
  }
  const { access_token: token } = await issueSession(deps, 'client', user.id, { ip: '127.0.0.1', userAgent: 'bench' });
  // The statements of the route's `listDocuments` call, as sent to PostgreSQL with their parameters.
  const { result: rows, queries: statements } = await captureQueries(async () => (await listDocuments(deps.db.models.Invoice, { page: 1, page_size: 20, user_id: user.id }, ['user_id', 'type', 'status'])).rows);
  if (rows.length !== 20 || statements.length !== 2) throw new Error(`client invoice list: ${rows.length} rows, ${statements.length} statements captured`);
  return { token, userId: user.id, invoices: CLIENT_INVOICES, statements };
}

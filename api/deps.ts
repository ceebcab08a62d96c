import type { AppConfig } from '../lib/config.js';
import { createSecretBox } from '../lib/crypto.js';
import type { Logger } from '../lib/logger.js';
import { createTemporalGateway } from '../lib/temporal.js';
import { createDatabase } from '../db/sequelize.js';
import { createPrincipalCache } from '../domain/auth/principal-cache.js';
import { createCatalogueCache } from '../domain/catalogue/catalogue-cache.js';
import type { AppDeps } from './context.js';

/** Everything an API process holds open, built from its configuration. */
export function createAppDeps(config: AppConfig, logger: Logger): AppDeps {
  return {
    config,
    logger,
    db: createDatabase({ url: config.databaseUrl, poolMax: config.databasePoolMax }),
    secretBox: createSecretBox(config.secretKey),
    temporal: createTemporalGateway({ address: config.temporal.address, namespace: config.temporal.namespace }),
    authCache: createPrincipalCache({ databaseUrl: config.databaseUrl, ttlMs: config.authCacheTtlMs, logger }),
    catalogueCache: createCatalogueCache({ databaseUrl: config.databaseUrl, ttlMs: config.catalogueCacheTtlMs, logger }),
  };
}

export async function closeAppDeps(deps: AppDeps): Promise<void> {
  await Promise.all([deps.temporal.close(), deps.authCache?.close(), deps.catalogueCache?.close()]);
  await deps.db.close();
}

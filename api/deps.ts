import type { AppConfig } from '../lib/config.js';
import { createSecretBox } from '../lib/crypto.js';
import type { Logger } from '../lib/logger.js';
import { createTemporalGateway } from '../lib/temporal.js';
import { createDatabase } from '../db/sequelize.js';
import { createPrincipalCache } from '../domain/auth/principal-cache.js';
import { createCatalogueCache } from '../domain/catalogue/catalogue-cache.js';
import { createSettingsCache } from '../domain/settings/settings-cache.js';
import { afterCommitIdle } from '../domain/billing/fulfilment/after-commit.js';
import type { AppDeps } from './context.js';

/** Everything an API process holds open, built from its configuration. */
export function createAppDeps(config: AppConfig, logger: Logger): AppDeps {
  const temporal = createTemporalGateway({ address: config.temporal.address, namespace: config.temporal.namespace });
  temporal.warm();
  return {
    config,
    logger,
    db: createDatabase({ url: config.databaseUrl, poolMax: config.databasePoolMax }),
    secretBox: createSecretBox(config.secretKey),
    temporal,
    authCache: createPrincipalCache({ databaseUrl: config.databaseUrl, ttlMs: config.authCacheTtlMs, logger }),
    catalogueCache: createCatalogueCache({ databaseUrl: config.databaseUrl, ttlMs: config.catalogueCacheTtlMs, logger }),
    settingsCache: createSettingsCache({ databaseUrl: config.databaseUrl, logger }),
  };
}

export async function closeAppDeps(deps: AppDeps): Promise<void> {
  // The quick tries after commits (workflow starts) get a moment to finish; what does not, the outbox relay performs.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([afterCommitIdle(deps), new Promise((resolve) => (timer = setTimeout(resolve, 5_000)))]);
  clearTimeout(timer);
  await Promise.all([deps.temporal.close(), deps.authCache?.close(), deps.catalogueCache?.close(), deps.settingsCache?.close()]);
  await deps.db.close();
}

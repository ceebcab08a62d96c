import type { AppConfig } from '../lib/config.js';
import { createSecretBox } from '../lib/crypto.js';
import type { Logger } from '../lib/logger.js';
import { createTemporalGateway } from '../lib/temporal.js';
import { createDatabase } from '../db/sequelize.js';
import { createPrincipalCache } from '../domain/auth/principal-cache.js';
import { createCatalogueCache } from '../domain/catalogue/catalogue-cache.js';
import { createSettingsCache } from '../domain/settings/settings-cache.js';
import { afterCommitIdle } from '../domain/after-commit.js';
import type { AppDeps } from './context.js';
import { createAuditWriter } from '../domain/logs/admin-audit.js';
import { createRequestLogWriter } from '../domain/logs/request-logs.js';
import { watchDatabasePool } from '../db/pool-metrics.js';

/** Everything an API process holds open, built from its configuration. */
export function createAppDeps(config: AppConfig, logger: Logger): AppDeps {
  const db = createDatabase({ url: config.databaseUrl, poolMax: config.databasePoolMax });
  const base = { config, logger, db };
  const temporal = createTemporalGateway({ address: config.temporal.address, namespace: config.temporal.namespace, tracing: config.tracing });
  temporal.warm();
  return {
    config,
    logger,
    db,
    operations: { requestLog: createRequestLogWriter(base), audit: createAuditWriter(base) },
    unwatchPool: watchDatabasePool('api', db),
    secretBox: createSecretBox(config.secretKey),
    temporal,
    authCache: createPrincipalCache({ databaseUrl: config.databaseUrl, ttlMs: config.authCacheTtlMs, logger }),
    catalogueCache: createCatalogueCache({ databaseUrl: config.databaseUrl, ttlMs: config.catalogueCacheTtlMs, logger }),
    settingsCache: createSettingsCache({ databaseUrl: config.databaseUrl, logger }),
  };
}

export async function closeAppDeps(deps: AppDeps): Promise<void> {
  // Work queued after commits (a verification code's send, a quick try of an outbox row) gets a moment to finish.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([afterCommitIdle(deps), new Promise((resolve) => (timer = setTimeout(resolve, 5_000)))]);
  clearTimeout(timer);
  await Promise.all([deps.temporal.close(), deps.authCache?.close(), deps.catalogueCache?.close(), deps.settingsCache?.close()]);
  // What the request log and the audit still hold is written before the pool closes.
  await Promise.all([deps.operations?.audit.close(), deps.operations?.requestLog.close()]);
  deps.unwatchPool?.();
  await deps.db.close();
}

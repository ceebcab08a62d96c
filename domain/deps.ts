import type { AppConfig } from '../lib/config.js';
import type { SecretBox } from '../lib/crypto.js';
import type { Logger } from '../lib/logger.js';
import type { TemporalGateway } from '../lib/temporal.js';
import type { Database } from '../db/sequelize.js';
import type { PrincipalCache } from './auth/principal-cache.js';
import type { CatalogueCache } from './catalogue/catalogue-cache.js';
import type { SettingsCache } from './settings/settings-cache.js';

/** What domain operations need; routes and activities pass the same object. */
export type DomainDeps = {
  config: AppConfig;
  db: Database;
  logger: Logger;
  secretBox: SecretBox;
  /** API processes: resolved principals cached per session, invalidated across processes. */
  authCache?: PrincipalCache;
  /** API processes: public catalogue reads, invalidated across processes. */
  catalogueCache?: CatalogueCache;
  /** Admin settings held per process, invalidated across processes (absent: read from the database each time). */
  settingsCache?: SettingsCache;
  /** Starting and signalling workflows from domain code (fulfilment dispatch); API and worker processes set it. */
  temporal?: TemporalGateway;
};

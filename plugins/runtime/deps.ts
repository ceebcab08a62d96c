import type { Database } from '../../db/sequelize.js';
import type { AppConfig } from '../../lib/config.js';
import type { SecretBox } from '../../lib/crypto.js';
import type { Logger } from '../../lib/logger.js';

/**
 * What the plugin runtime needs from its caller: its own tables, the configuration, the logger
 * and the secret box. Domain code passes its `DomainDeps`, which has all of these; the runtime
 * never depends on the domain's type.
 */
export type RuntimeDeps = {
  config: AppConfig;
  db: Database;
  logger: Logger;
  secretBox: SecretBox;
};

// The outbox relay alone, as the worker process runs it (activities/worker.ts), in a child process
// of the money bench: it performs the fulfilment rows the payments write (workflow starts), so the
// bench measures commit → workflow start. No workers run: the started workflows wait, and the
// seeded payment workflows never poll the gateway (which would settle the notifications' payments).
// Prints `"relay started"` once it listens; SIGTERM stops it.
import { loadConfig } from '../../lib/config.js';
import { createSecretBox } from '../../lib/crypto.js';
import { createLogger } from '../../lib/logger.js';
import { createTemporalGateway } from '../../lib/temporal.js';
import { createDatabase } from '../../db/sequelize.js';
import type { DomainDeps } from '../../domain/deps.js';
import { startOutboxRelay } from '../../domain/outbox/relay.js';
import { createSettingsCache } from '../../domain/settings/settings-cache.js';

const config = loadConfig(process.env);
const logger = createLogger(config.logLevel, 'bench-relay');
const db = createDatabase({ url: config.databaseUrl, poolMax: config.databasePoolMax });
const temporal = createTemporalGateway({ address: config.temporal.address, namespace: config.temporal.namespace });
const settingsCache = createSettingsCache({ databaseUrl: config.databaseUrl, logger });
const deps: DomainDeps = { config, db, logger, secretBox: createSecretBox(config.secretKey), temporal, settingsCache };
const relay = startOutboxRelay(deps);
const started = setInterval(() => {
  if (!relay.isListening()) return;
  clearInterval(started);
  console.log('"relay started"');
}, 20);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  clearInterval(started);
  await relay.stop();
  await Promise.all([temporal.close(), settingsCache.close()]);
  await db.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());

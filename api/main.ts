import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { createApp } from './app.js';
import { closeAppDeps, createAppDeps } from './deps.js';
import { serveApp } from './server.js';

/** The API process: configuration from the environment only. */
export async function startApi() {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'api');
  const deps = createAppDeps(config, logger);
  const served = await serveApp(createApp(deps), { hostname: config.host, port: config.port });
  logger.info({ port: served.port }, 'api listening');
  // Requests still running (even for clients that went away) finish before the pool closes.
  const stop = async () => {
    await served.stop();
    await closeAppDeps(deps);
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  return served;
}

// Real paths on both sides: Node resolves symlinks for import.meta.url, not for argv[1].
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  startApi().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

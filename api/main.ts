import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { createApp } from './app.js';
import { closeAppDeps, createAppDeps } from './deps.js';

/** The API process: configuration from the environment only. */
export function startApi() {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'api');
  const deps = createAppDeps(config, logger);
  const app = createApp(deps);
  // Requests still running (even for clients that went away) finish before the pool closes.
  let inFlight = 0;
  const fetch = async (request: Request) => {
    inFlight += 1;
    try {
      return await app.fetch(request);
    } finally {
      inFlight -= 1;
    }
  };
  const server = serve({ fetch, hostname: config.host, port: config.port }, (info) => {
    logger.info({ port: info.port }, 'api listening');
  });
  const stop = () => {
    server.close(async () => {
      for (let i = 0; i < 100 && inFlight > 0; i++) await new Promise((r) => setTimeout(r, 100));
      await closeAppDeps(deps);
      process.exit(0);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return server;
}

// Real paths on both sides: Node resolves symlinks for import.meta.url, not for argv[1].
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) startApi();

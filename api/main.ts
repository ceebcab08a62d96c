import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../lib/config.js';
import { serveMetrics } from '../lib/metrics-server.js';
import { recordConfigError, recordSystemLog } from '../domain/logs/system-logs.js';
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
  const metrics = config.metrics.apiPort
    ? await serveMetrics({ host: config.metrics.host, port: config.metrics.apiPort, token: config.metrics.token })
    : null;
  logger.info({ port: served.port, metricsPort: metrics?.port }, 'api listening');
  await recordSystemLog(deps, { category: 'startup', event: 'api.started', message: `接口进程已启动（端口 ${served.port}）`, process: 'api', detail: { port: served.port, pid: process.pid, metrics_port: metrics?.port ?? null } });
  // Requests still running (even for clients that went away) finish before the pool closes.
  const stop = async () => {
    await served.stop();
    await metrics?.close();
    await closeAppDeps(deps);
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  return served;
}

// Real paths on both sides: Node resolves symlinks for import.meta.url, not for argv[1].
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  startApi().catch(async (err: unknown) => {
    console.error(err);
    if (err instanceof ConfigError) await recordConfigError('api', err);
    process.exit(1);
  });
}

import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../lib/config.js';
import { serveMetrics } from '../lib/metrics-server.js';
import { recordConfigError, recordSystemLog } from '../domain/logs/system-logs.js';
import { createLogger } from '../lib/logger.js';
import { stopTracing } from '../lib/tracing.js';
import { createApp } from './app.js';
import { watchSupplierEconomics } from '../domain/economics/margins.js';
import { watchFactGauges } from '../domain/economics/fact-gauges.js';
import { watchBackupStatus } from '../domain/backups/status.js';
import { closeAppDeps, createAppDeps } from './deps.js';
import { serveApp } from './server.js';

/** Closing the writers, pools and connections after the grace: this long at most before the stop is forced. */
const CLOSE_ALLOWANCE_MS = 10_000;

/** The API process: configuration from the environment only. */
export async function startApi() {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'api');
  const deps = createAppDeps(config, logger);
  const lifecycle = { draining: false };
  deps.lifecycle = lifecycle;
  const served = await serveApp(createApp(deps), { hostname: config.host, port: config.port });
  const unwatchEconomics = watchSupplierEconomics(deps);
  const unwatchFacts = watchFactGauges(deps);
  const unwatchBackups = watchBackupStatus(deps);
  const metrics = config.metrics.apiPort
    ? await serveMetrics({ host: config.metrics.host, port: config.metrics.apiPort, token: config.metrics.token })
    : null;
  // Graceful stop (docs/production.md "Stopping (SIGTERM)"): drain (health 503, still serving) so a balancer takes this
  // process out; then no new connections, requests in flight finish within the grace, the console
  // relay sessions end with 1001, the batch writers flush, the pools and Temporal close; exit 0.
  // A second signal, or the stop outlasting drain + grace (+ time to close), exits at once with 1.
  const { drainSeconds, graceSeconds } = config.shutdown;
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'api stop forced by a second signal');
      process.exit(1);
    }
    stopping = true;
    setTimeout(() => {
      logger.error({ drainSeconds, graceSeconds }, 'api stop took too long: exiting');
      process.exit(1);
    }, (drainSeconds + graceSeconds) * 1000 + CLOSE_ALLOWANCE_MS).unref();
    lifecycle.draining = true;
    logger.info({ signal, drainSeconds, graceSeconds }, 'api draining');
    if (drainSeconds > 0) await new Promise((resolve) => setTimeout(resolve, drainSeconds * 1000));
    logger.info('api closing: no new connections');
    const cutOff = await served.stop({ graceMs: graceSeconds * 1000 });
    if (cutOff > 0) logger.warn({ cutOff }, 'api grace ran out: requests cut off');
    await metrics?.close();
    unwatchEconomics();
    unwatchFacts();
    unwatchBackups();
    await closeAppDeps(deps);
    logger.info('api stopped');
    await stopTracing();
    process.exit(0);
  };
  process.on('SIGINT', (signal) => void stop(signal));
  process.on('SIGTERM', (signal) => void stop(signal));
  logger.info({ port: served.port, metricsPort: metrics?.port }, 'api listening');
  await recordSystemLog(deps, { category: 'startup', event: 'api.started', message: `接口进程已启动（端口 ${served.port}）`, process: 'api', detail: { port: served.port, pid: process.pid, metrics_port: metrics?.port ?? null } });
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

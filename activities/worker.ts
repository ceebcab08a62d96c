import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { ConfigError, loadConfig, type AppConfig } from '../lib/config.js';
import { scrapeText, serveMetrics } from '../lib/metrics-server.js';
import { watchDatabasePool } from '../db/pool-metrics.js';
import { recordConfigError, recordSystemLog } from '../domain/logs/system-logs.js';
import { createSecretBox } from '../lib/crypto.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { createTemporalGateway } from '../lib/temporal.js';
import { stopTracing } from '../lib/tracing.js';
import { createDatabase } from '../db/sequelize.js';
import type { DomainDeps } from '../domain/deps.js';
import { createSettingsCache } from '../domain/settings/settings-cache.js';
import { startOutboxRelay } from '../domain/outbox/relay.js';
import { createActivities } from './index.js';
import { WORKFLOW_TRACING_MODULE, workerTracingOptions } from './tracing.js';
import { platformWorkerTuning } from './worker-tuning.js';
import { ensureSchedules } from './schedules.js';

export type WorkflowSource = { workflowBundlePath: string } | { workflowsPath: string };

/** Where the workflow code comes from: the prebuilt bundle when present, else the sources. */
export function defaultWorkflowSource(): WorkflowSource {
  const bundle = process.env.WORKFLOW_BUNDLE_PATH;
  if (bundle) return { workflowBundlePath: bundle };
  if (import.meta.url.endsWith('.js')) {
    return { workflowBundlePath: fileURLToPath(new URL('../workflow-bundle.js', import.meta.url)) };
  }
  return { workflowsPath: fileURLToPath(new URL('../workflows/index.ts', import.meta.url)) };
}

/** Bundles the workflow sources once (quietly); used when no prebuilt bundle exists. */
export async function bundleWorkflows(workflowsPath: string, traced = false): Promise<{ code: string }> {
  const quiet = new DefaultLogger('WARN');
  return bundleWorkflowCode({ workflowsPath, logger: quiet, ...(traced ? { workflowInterceptorModules: [WORKFLOW_TRACING_MODULE] } : {}) });
}

/**
 * Builds the two workers of one process: `platform` (provisioning, payments, renewals) and
 * `automation` (schedules and tasks). Both share the activities, one connection and one bundle.
 */
export async function createWorkers(deps: DomainDeps, connection: NativeConnection, source: WorkflowSource) {
  const activities = createActivities(deps);
  const traced = deps.config.tracing;
  const workflowBundle =
    'workflowBundlePath' in source ? { codePath: source.workflowBundlePath } : await bundleWorkflows(source.workflowsPath, traced);
  // With tracing on (docs/operations.md "Traces"): the workflow and activity spans join the caller's trace.
  const tracing = workerTracingOptions(traced, false);
  // On shutdown, activities in flight get SHUTDOWN_GRACE_SECONDS to finish before they are cancelled
  // (their attempt fails and Temporal retries it on another worker); workflow tasks are handed back.
  const shutdownGraceTime = deps.config.shutdown.graceSeconds * 1000;
  const common = { connection, namespace: deps.config.temporal.namespace, activities, workflowBundle, shutdownGraceTime, ...tracing };
  return Promise.all([
    Worker.create({ ...common, taskQueue: deps.config.temporal.taskQueue, ...platformWorkerTuning(deps.config.temporal.workerConcurrency) }),
    Worker.create({ ...common, taskQueue: deps.config.temporal.automationQueue }),
  ]);
}

/**
 * The Temporal SDK's own metrics (workflow and activity task latencies, slots, polls, sticky
 * cache...): the core runtime serves them in Prometheus form on TEMPORAL_METRICS_BIND_ADDRESS,
 * or, with only WORKER_METRICS_PORT set, on 127.0.0.1:9466; the worker's `/metrics` appends them.
 */
function temporalMetricsAddress(config: AppConfig): string | null {
  return config.metrics.temporalBindAddress ?? (config.metrics.workerPort ? '127.0.0.1:9466' : null);
}

function temporalTelemetry(config: AppConfig) {
  const bindAddress = temporalMetricsAddress(config);
  return bindAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress } } } } : {};
}

function temporalMetricsSource(config: AppConfig) {
  const bindAddress = temporalMetricsAddress(config);
  return bindAddress ? () => scrapeText(`http://${bindAddress}/metrics`) : undefined;
}

async function main(config: AppConfig, logger: Logger) {
  const db = createDatabase({ url: config.databaseUrl, poolMax: config.databasePoolMax });
  const temporal = createTemporalGateway({ address: config.temporal.address, namespace: config.temporal.namespace, tracing: config.tracing });
  const settingsCache = createSettingsCache({ databaseUrl: config.databaseUrl, logger });
  const deps: DomainDeps = { config, db, logger, secretBox: createSecretBox(config.secretKey), temporal, settingsCache };
  const unwatchPool = watchDatabasePool('worker', db);
  const metrics = config.metrics.workerPort
    ? await serveMetrics({ host: config.metrics.host, port: config.metrics.workerPort, token: config.metrics.token, extra: temporalMetricsSource(config) })
    : null;
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const clientConnection = await Connection.connect({ address: config.temporal.address });
  await ensureSchedules(new Client({ connection: clientConnection, namespace: config.temporal.namespace }), config, logger, (event, scheduleId) =>
    recordSystemLog(deps, { category: 'schedule', event, message: `${event === 'schedule.created' ? '已创建计划' : '已同步计划定义'} ${scheduleId}`, process: 'worker', detail: { schedule_id: scheduleId } }),
  );
  await clientConnection.close();
  const workers = await createWorkers(deps, connection, defaultWorkflowSource());
  // The outbox relay lives beside the workers (never in the API): what a commit promised is
  // performed by the process that runs the workflows, with its own Temporal connection.
  const relay = startOutboxRelay(deps);
  const running = Promise.all(workers.map((w) => w.run()));
  // Awaited below; a failure before that must not count as an unhandled rejection meanwhile.
  running.catch(() => undefined);
  // Graceful stop (docs/production.md "Stopping (SIGTERM)"): the relay stops claiming (a pass under way finishes and its
  // leases are settled), the workers stop polling and give activities in flight the grace, then
  // everything closes and the process exits 0. A second signal, or the stop outlasting the grace
  // (+ time to close), exits at once with 1.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'worker stop forced by a second signal');
      process.exit(1);
    }
    stopping = true;
    setTimeout(() => {
      logger.error({ graceSeconds: config.shutdown.graceSeconds }, 'worker stop took too long: exiting');
      process.exit(1);
    }, config.shutdown.graceSeconds * 1000 + CLOSE_ALLOWANCE_MS).unref();
    logger.info({ signal, graceSeconds: config.shutdown.graceSeconds }, 'worker stopping');
    workers.forEach((w) => w.shutdown());
    void relay.stop();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  logger.info({ queues: [config.temporal.taskQueue, config.temporal.automationQueue], metricsPort: metrics?.port }, 'worker started');
  await recordSystemLog(deps, {
    category: 'startup',
    event: 'worker.started',
    message: '工作进程已启动',
    process: 'worker',
    detail: { pid: process.pid, queues: [config.temporal.taskQueue, config.temporal.automationQueue], metrics_port: metrics?.port ?? null },
  });
  await running;
  await relay.stop();
  await metrics?.close();
  unwatchPool();
  await connection.close();
  await temporal.close();
  await settingsCache.close();
  await db.close();
  logger.info('worker stopped');
}

/** Closing the relay, pools and connections after the grace: this long at most before the stop is forced. */
const CLOSE_ALLOWANCE_MS = 10_000;

// Real paths on both sides: Node resolves symlinks for import.meta.url, not for argv[1].
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (err) {
    console.error(err);
    if (err instanceof ConfigError) await recordConfigError('worker', err);
    process.exit(1);
  }
  const logger = createLogger(config.logLevel, 'worker');
  // The SDK's own signal handlers would stop the workers without our relay and force rules: the process handles them (main).
  Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [], ...temporalTelemetry(config) });
  main(config, logger).then(
    async () => {
      await stopTracing();
      process.exit(0);
    },
    (err: unknown) => {
      logger.fatal({ err }, 'worker failed');
      process.exit(1);
    },
  );
}

import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { loadConfig, type AppConfig } from '../lib/config.js';
import { createSecretBox } from '../lib/crypto.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { createTemporalGateway } from '../lib/temporal.js';
import { createDatabase } from '../db/sequelize.js';
import type { DomainDeps } from '../domain/deps.js';
import { createSettingsCache } from '../domain/settings/settings-cache.js';
import { startOutboxRelay } from '../domain/outbox/relay.js';
import { createActivities } from './index.js';
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

/**
 * Builds the two workers of one process: `platform` (provisioning, payments, renewals) and
 * `automation` (schedules and tasks). Both share the activities and one connection.
 */
/** Bundles the workflow sources once (quietly); used when no prebuilt bundle exists. */
export async function bundleWorkflows(workflowsPath: string): Promise<{ code: string }> {
  const quiet = new DefaultLogger('WARN');
  return bundleWorkflowCode({ workflowsPath, logger: quiet });
}

/**
 * Builds the two workers of one process: `platform` (provisioning, payments, renewals) and
 * `automation` (schedules and tasks). Both share the activities, one connection and one bundle.
 */
export async function createWorkers(deps: DomainDeps, connection: NativeConnection, source: WorkflowSource) {
  const activities = createActivities(deps);
  const workflowBundle =
    'workflowBundlePath' in source ? { codePath: source.workflowBundlePath } : await bundleWorkflows(source.workflowsPath);
  const common = { connection, namespace: deps.config.temporal.namespace, activities, workflowBundle };
  // A provisioning runs its steps as local activities inside its workflow task, so the platform
  // queue needs as many workflow-task slots as provisionings that may run at once.
  const concurrency = deps.config.temporal.workerConcurrency;
  return Promise.all([
    Worker.create({
      ...common,
      taskQueue: deps.config.temporal.taskQueue,
      maxConcurrentWorkflowTaskExecutions: concurrency,
      maxConcurrentLocalActivityExecutions: concurrency,
      maxConcurrentActivityTaskExecutions: concurrency,
      maxCachedWorkflows: Math.max(concurrency * 2, 1000),
    }),
    Worker.create({ ...common, taskQueue: deps.config.temporal.automationQueue }),
  ]);
}

async function main(config: AppConfig, logger: Logger) {
  const db = createDatabase({ url: config.databaseUrl, poolMax: config.databasePoolMax });
  const temporal = createTemporalGateway({ address: config.temporal.address, namespace: config.temporal.namespace });
  const settingsCache = createSettingsCache({ databaseUrl: config.databaseUrl, logger });
  const deps: DomainDeps = { config, db, logger, secretBox: createSecretBox(config.secretKey), temporal, settingsCache };
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const clientConnection = await Connection.connect({ address: config.temporal.address });
  await ensureSchedules(new Client({ connection: clientConnection, namespace: config.temporal.namespace }), config, logger);
  await clientConnection.close();
  const workers = await createWorkers(deps, connection, defaultWorkflowSource());
  // The outbox relay lives beside the workers (never in the API): what a commit promised is
  // performed by the process that runs the workflows, with its own Temporal connection.
  const relay = startOutboxRelay(deps);
  logger.info({ queues: [config.temporal.taskQueue, config.temporal.automationQueue] }, 'worker started');
  const stop = () => workers.forEach((w) => w.shutdown());
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await Promise.all(workers.map((w) => w.run()));
  await relay.stop();
  await connection.close();
  await temporal.close();
  await settingsCache.close();
  await db.close();
  logger.info('worker stopped');
}

// Real paths on both sides: Node resolves symlinks for import.meta.url, not for argv[1].
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'worker');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  main(config, logger).catch((err: unknown) => {
    logger.fatal({ err }, 'worker failed');
    process.exit(1);
  });
}

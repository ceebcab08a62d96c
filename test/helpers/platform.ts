import { randomBytes, randomInt } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { createApp } from '../../api/app.js';
import type { AppDeps } from '../../api/context.js';
import { closeAppDeps, createAppDeps } from '../../api/deps.js';
import { serveApp } from '../../api/server.js';
import { createWorkers } from '../../activities/worker.js';
import { ensureSchedules } from '../../activities/schedules.js';
import { ensureSuperAdmin } from '../../domain/admins/bootstrap.js';
import { type OutboxRelay, startOutboxRelay } from '../../domain/outbox/relay.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { ensureDatabase, quoteIdent, withDatabase, withPgClient } from '../../scripts/lib/postgres.js';
import { type ApiClient, createApiClient } from './http.js';
import { registerKnownSecret } from './known-secrets.js';

// The SDK's INFO lines would drown the test report; warnings and errors still show.
Runtime.install({ logger: new DefaultLogger('WARN') });

export const ROOT_ADMIN = { username: 'root', password: 'root-password-2026' } as const;

/**
 * Sequences whose values become Temporal workflow ids (`invoice-payment:<invoice_no>`,
 * `refund:<refund_no>`, `provision:<service_id>`, `verification:<attempt_no>`). Every test
 * database is cloned from one template and all files share one Temporal server, so each database
 * starts them at its own random offset; otherwise two files would both start, signal or reuse
 * `provision:1`. Each offset stays below the sequence's room: services.id is an INTEGER and an
 * attempt number holds its value in 8 digits.
 */
const WORKFLOW_ID_SEQUENCES: Record<string, number> = {
  invoice_no_seq: 2_000_000,
  refund_no_seq: 2_000_000,
  services_id_seq: 2_000_000,
  verification_attempt_no_seq: 90_000,
};

async function offsetWorkflowIdSequences(databaseUrl: string): Promise<void> {
  // Far apart for a few thousand rows per file.
  await withPgClient(databaseUrl, async (client) => {
    for (const [name, room] of Object.entries(WORKFLOW_ID_SEQUENCES)) {
      const found = await client.query<{ seq: string | null }>('SELECT to_regclass($1)::text AS seq', [name]);
      if (found.rows[0]?.seq) await client.query(`ALTER SEQUENCE ${quoteIdent(name)} RESTART WITH ${randomInt(1, room) * 1000}`);
    }
  });
}

export type TestPlatform = {
  id: string;
  /** The environment the platform's config was read from (for child processes of the same platform). */
  env: Record<string, string>;
  deps: AppDeps;
  api: ApiClient;
  baseUrl: string;
  temporal: Client;
  workers: Worker[];
  /** The in-process outbox relay (with `worker: true`); a test may stop it with the workers. */
  relay: OutboxRelay | null;
  rootToken(): Promise<string>;
  close(): Promise<void>;
};

/**
 * A whole platform for one test file: its own database cloned from the migrated template,
 * the real API on a real port, and (optionally) real workers on task queues and schedule ids
 * of its own, against the run's shared PostgreSQL and Temporal servers.
 */
export async function startTestPlatform(options: { worker?: boolean; schedules?: boolean; env?: Record<string, string> } = {}) {
  const id = randomBytes(4).toString('hex');
  const adminUrl = inject('adminDatabaseUrl');
  const database = `t_${id}`;
  await ensureDatabase(adminUrl, database, inject('templateDatabase'));
  await offsetWorkflowIdSequences(withDatabase(adminUrl, database));
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATABASE_URL: withDatabase(adminUrl, database),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    APP_SECRET_KEY: randomBytes(32).toString('base64url'),
    TEMPORAL_TASK_QUEUE: `platform-${id}`,
    TEMPORAL_AUTOMATION_QUEUE: `automation-${id}`,
    TEMPORAL_SCHEDULE_PREFIX: `t-${id}-`,
    DATABASE_POOL_MAX: '5',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: join(tmpdir(), `platform-data-${id}`),
    // API processes a test spawns stop without the balancer's drain (test/api/graceful-shutdown.test.ts sets its own).
    SHUTDOWN_DRAIN_SECONDS: '0',
    ...options.env,
  };
  const config = loadConfig(env);
  registerKnownSecret(config.secretKey);
  registerKnownSecret(ROOT_ADMIN.password);
  const logger = createLogger(config.logLevel, 'test');
  const deps = createAppDeps(config, logger);
  // Served exactly as api/main.ts serves it, so the socket (the client address) reaches the app.
  const served = await serveApp(createApp(deps), { hostname: '127.0.0.1', port: 0 });
  const baseUrl = `http://127.0.0.1:${served.port}`;
  const clientConnection = await Connection.connect({ address: config.temporal.address });
  const temporal = new Client({ connection: clientConnection, namespace: config.temporal.namespace });

  let workers: Worker[] = [];
  let nativeConnection: NativeConnection | null = null;
  let running: Promise<unknown> = Promise.resolve();
  let relay: OutboxRelay | null = null;
  if (options.worker) {
    nativeConnection = await NativeConnection.connect({ address: config.temporal.address });
    workers = await createWorkers(deps, nativeConnection, { workflowBundlePath: inject('workflowBundlePath') });
    running = Promise.all(workers.map((w) => w.run()));
    // As in activities/worker.ts: the worker process runs the outbox relay.
    relay = startOutboxRelay(deps);
  }
  if (options.schedules) await ensureSchedules(temporal, config, logger);

  await ensureSuperAdmin(deps, ROOT_ADMIN);
  const api = createApiClient(baseUrl);
  let rootToken: string | null = null;

  const platform: TestPlatform = {
    id,
    env,
    deps,
    api,
    baseUrl,
    temporal,
    workers,
    relay,
    async rootToken() {
      if (!rootToken) {
        const res = await api.post('/api/v2/admin/login', { body: ROOT_ADMIN });
        rootToken = res.body.data.access_token as string;
      }
      return rootToken;
    },
    async close() {
      if (options.schedules) {
        for await (const s of temporal.schedule.list()) {
          if (s.scheduleId.startsWith(config.temporal.schedulePrefix)) await temporal.schedule.getHandle(s.scheduleId).delete();
        }
      }
      // A test may have stopped the workers itself (worker restart tests).
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await running;
      await relay?.stop();
      await nativeConnection?.close();
      await clientConnection.close();
      await served.stop();
      await rm(env.DATA_DIR as string, { recursive: true, force: true });
      await closeAppDeps(deps);
      await withPgClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)} WITH (FORCE)`));
    },
  };
  return platform;
}

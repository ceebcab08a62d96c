import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../lib/config.js';
import { createSecretBox } from '../lib/crypto.js';
import { createLogger } from '../lib/logger.js';
import { runMigrations } from '../db/migrate.js';
import type { RunningSandboxes } from '../sandbox/launcher.js';
import { startDemoSandboxes } from './lib/demo-sandboxes.js';
import { demoAccountLines, sandboxLines, seedDevDemo } from './seeders/dev-demo.js';
import { createDatabase } from '../db/sequelize.js';
import { ensureSuperAdmin } from '../domain/admins/bootstrap.js';
import { type Child, launcherStops, startNodeChild, stopChild } from './lib/children.js';
import { envPort } from './lib/ports.js';
import { ensureDatabase, type RunningPostgres, startEmbeddedPostgres } from './lib/postgres.js';
import { devSandboxSecrets } from './lib/sandbox-secrets.js';
import { devSecretKey } from './lib/secret-key.js';
import { ensureTemporalCli } from './lib/temporal-cli.js';
import { type RunningTemporal, startTemporalDevServer } from './lib/temporal-server.js';

const log = (m: string) => console.log(`[dev] ${m}`);
const { add: addStop, shutdown, stopping } = launcherStops(log);

async function waitForHealth(url: string, child: Child): Promise<void> {
  for (let i = 0; i < 240; i++) {
    if (child.process.exitCode !== null) throw new Error('api exited during start');
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`api not healthy at ${url}`);
}

async function main() {

  const dataDir = resolve(process.env.DATA_DIR ?? '.data');
  mkdirSync(dataDir, { recursive: true });
  const port = envPort('PORT', 8080);
  const pgPort = envPort('PG_PORT', 54329);
  const temporalPort = envPort('TEMPORAL_PORT', 7233);
  const uiPort = envPort('TEMPORAL_UI_PORT', 8233);

  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    log(`启动内置 PostgreSQL / starting embedded PostgreSQL on ${pgPort} (data: ${dataDir}/postgres)`);
    const pg: RunningPostgres = await startEmbeddedPostgres({ dataDir: `${dataDir}/postgres`, port: pgPort, persistent: true, log });
    addStop(() => pg.stop());
    await ensureDatabase(pg.url('postgres'), 'platform');
    databaseUrl = pg.url('platform');
  }

  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  let temporalUiUrl = process.env.TEMPORAL_UI_URL ?? `http://localhost:${uiPort}`;
  if (!temporalAddress) {
    const cliPath = await ensureTemporalCli(log);
    log(`启动 Temporal 开发服务器 / starting Temporal dev server on ${temporalPort}, UI ${uiPort}`);
    const temporal: RunningTemporal = await startTemporalDevServer({
      cliPath,
      port: temporalPort,
      uiPort,
      dbFile: `${dataDir}/temporal.db`,
      namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    });
    addStop(() => temporal.stop());
    temporalAddress = temporal.address;
    temporalUiUrl = temporal.uiUrl ?? temporalUiUrl;
  }

  const sandboxSecrets = devSandboxSecrets(dataDir);
  log('启动沙箱第三方 / starting sandbox third parties');
  const sandboxes: RunningSandboxes = await startDemoSandboxes(dataDir, sandboxSecrets, { envPrefix: 'SANDBOX', basePort: 18100 });
  addStop(() => sandboxes.stop());

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_UI_URL: temporalUiUrl,
    APP_SECRET_KEY: devSecretKey(dataDir),
    // Uploaded files go under <DATA_DIR>/media, beside the database.
    DATA_DIR: dataDir,
  };
  const config = loadConfig(env);
  const logger = createLogger('warn', 'dev');
  const db = createDatabase({ url: config.databaseUrl });
  const deps = { config, db, logger, secretBox: createSecretBox(config.secretKey) };
  const applied = await runMigrations(db.sequelize);
  log(applied.length ? `已执行迁移 / migrations applied: ${applied.join(', ')}` : '数据库已是最新 / database up to date');
  const admin = await ensureSuperAdmin(deps, { username: process.env.ADMIN_USERNAME ?? 'admin', password: process.env.ADMIN_PASSWORD });
  const shownOnce = await seedDevDemo(deps, sandboxes, sandboxSecrets, log);
  await db.close();

  const worker = startNodeChild('worker', 'activities/worker.ts', env);
  addStop(() => stopChild(worker));
  // No balancer in dev: the API stops without the drain (docs/production.md "Stopping (SIGTERM)"), unless the variable is set.
  const api = startNodeChild('api', 'api/main.ts', { SHUTDOWN_DRAIN_SECONDS: '0', ...env });
  addStop(() => stopChild(api));
  for (const child of [worker, api]) {
    void child.exited.then((code) => {
      if (!stopping()) {
        log(`${child.name} exited (${code}); stopping`);
        void shutdown(1);
      }
    });
  }
  await waitForHealth(`http://127.0.0.1:${port}/api/health`, api);

  const lines = [
    '',
    // Seconds since this process started (Node, tsx and the imports included): what `npm run
    // dev` costs on this machine, and what the bench's dev step (bench/dev-start/) compares.
    `平台已启动 / platform is up (${process.uptime().toFixed(1)} s)`,
    `  API            http://localhost:${port}/api/v2/`,
    `  健康检查        http://localhost:${port}/api/health`,
    `  API 参考        http://localhost:${port}/api/docs  (OpenAPI: /api/openapi.json)`,
    `  Temporal UI    ${temporalUiUrl}  (心跳计划 / heartbeat schedule: Schedules → ${config.temporal.schedulePrefix}heartbeat)`,
    `  管理员 / admin  ${admin.username}${admin.password ? `  密码 / password: ${admin.password}  (仅显示一次 / shown once)` : '  (密码未变 / password unchanged)'}`,
    ...demoAccountLines(shownOnce),
    ...sandboxLines(sandboxes),
    '  Ctrl-C 停止全部进程 / stops everything',
    '',
  ];
  console.log(lines.join('\n'));
}

main().catch(async (err: unknown) => {
  console.error(`[dev] 启动失败 / start failed: ${err instanceof Error ? err.message : String(err)}`);
  await shutdown(1);
});

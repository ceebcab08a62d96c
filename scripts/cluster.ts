// `npm run cluster`: the production shape on one machine, without Docker (docs/production.md).
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../lib/config.js';
import { createSecretBox } from '../lib/crypto.js';
import { createLogger } from '../lib/logger.js';
import { createDatabase } from '../db/sequelize.js';
import { ensureSuperAdmin } from '../domain/admins/bootstrap.js';
import type { RunningSandboxes } from '../sandbox/launcher.js';
import { startDemoSandboxes } from './lib/demo-sandboxes.js';
import { launcherStops } from './lib/children.js';
import { backupCluster, type Cluster, clusterPaths, ClusterUnavailableError, restoreCluster, startCluster } from './lib/cluster.js';
import { embeddedPostgresUrl } from './lib/postgres.js';
import { envPort } from './lib/ports.js';
import { devSandboxSecrets } from './lib/sandbox-secrets.js';
import { TEMPORAL_SERVER_VERSION } from './lib/temporal-cluster.js';
import { TEMPORAL_UI_VERSION } from './lib/temporal-ui.js';
import { type DemoShownOnce, demoAccountLines, sandboxLines, seedDevDemo } from './seeders/dev-demo.js';

const log = (m: string) => console.log(`[cluster] ${m}`);
const { add: addStop, shutdown, stopping } = launcherStops(log);

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1 || value > 16) throw new Error(`${name} must be a whole number from 1 to 16`);
  return value;
}

/**
 * The operator's backup commands (docs/production.md "Back up", "Restore to a point in time"):
 * `npm run cluster -- backup` (cluster running) and `npm run cluster -- restore --to "<time>"`
 * (cluster stopped). Answers whether a command ran.
 */
async function backupCommands(): Promise<boolean> {
  const [command, ...rest] = process.argv.slice(2);
  if (command !== 'backup' && command !== 'restore') return false;
  const dataDir = resolve(process.env.CLUSTER_DATA_DIR ?? '.data-cluster');
  const paths = clusterPaths(dataDir);
  const pgPort = envPort('CLUSTER_PG_PORT', 54339);
  if (command === 'backup') {
    const backup = await backupCluster({ adminDatabaseUrl: embeddedPostgresUrl(pgPort, 'postgres'), paths });
    log(`基础备份完成 / base backup done: ${backup.dir} (${(backup.bytes / 1e6).toFixed(1)} MB, ${backup.startLsn} → ${backup.stopLsn}); restorable from ${backup.finishedAt.toISOString()}`);
    return true;
  }
  const at = rest.indexOf('--to');
  const to = at >= 0 ? rest[at + 1] : undefined;
  if (!to) throw new Error('用法 / usage: npm run cluster -- restore --to "2026-11-28 17:05:00+00"');
  const restored = await restoreCluster({ paths, pgPort, target: new Date(to), log });
  log(`已恢复到 / restored to ${restored.target.toISOString()} from ${restored.backup.dir}; old data: ${restored.movedAside ?? '(none)'}`);
  log('下一步 / next: npm run cluster, then trigger the task billing.redispatch_fulfilment (docs/production.md "After a restore")');
  return true;
}

async function main() {
  const ran = await backupCommands().catch((err: unknown) => {
    console.error(`[cluster] ${process.argv[2]} 失败 / failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
  if (ran) process.exit(0);

  const dataDir = resolve(process.env.CLUSTER_DATA_DIR ?? '.data-cluster');
  const port = envPort('CLUSTER_PORT', 8090);
  const apiPortBase = envPort('CLUSTER_API_PORT', port + 1);
  const apiPorts = Array.from({ length: positive('CLUSTER_APIS', 2) }, (_, i) => apiPortBase + i);
  mkdirSync(dataDir, { recursive: true });
  const sandboxSecrets = devSandboxSecrets(dataDir);
  log('启动沙箱第三方 / starting sandbox third parties');
  const sandboxes: RunningSandboxes = await startDemoSandboxes(dataDir, sandboxSecrets, { envPrefix: 'CLUSTER_SANDBOX', basePort: 18200 });
  addStop(() => sandboxes.stop());

  let admin: { username: string; password: string | null } = { username: 'admin', password: null };
  let shownOnce: DemoShownOnce = { twoFactorAdmin: null, clientToken: null };
  const cluster: Cluster = await startCluster({
    dataDir,
    port,
    apiPorts,
    workers: positive('CLUSTER_WORKERS', 2),
    pgPort: envPort('CLUSTER_PG_PORT', 54339),
    temporalPort: envPort('CLUSTER_TEMPORAL_PORT', 7433),
    temporalUiPort: envPort('CLUSTER_TEMPORAL_UI_PORT', 8433),
    ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : {}),
    echo: true,
    log,
    async seed(env) {
      const config = loadConfig(env);
      const db = createDatabase({ url: config.databaseUrl });
      const deps = { config, db, logger: createLogger('warn', 'cluster'), secretBox: createSecretBox(config.secretKey) };
      try {
        const created = await ensureSuperAdmin(deps, { username: process.env.ADMIN_USERNAME ?? 'admin', password: process.env.ADMIN_PASSWORD });
        admin = { username: created.username, password: created.password ?? null };
        shownOnce = await seedDevDemo(deps, sandboxes, sandboxSecrets, log);
      } finally {
        await db.close();
      }
    },
  });
  addStop(() => cluster.stop());
  for (const child of [...cluster.apis, ...cluster.workers]) {
    void (async () => {
      while (!stopping()) {
        await new Promise((r) => setTimeout(r, 1000));
        if (!stopping() && !child.running()) {
          log(`${child.name} exited; stopping`);
          void shutdown(1);
          return;
        }
      }
    })();
  }

  console.log(
    [
      '',
      `集群已启动 / cluster is up (${process.uptime().toFixed(1)} s)`,
      `  入口 / entry (HAProxy)  ${cluster.url.replace('127.0.0.1', 'localhost')}/api/v2/   (API 文档 /api/docs)`,
      `  API 进程 / APIs   ${cluster.apis.map((a) => a.url).join('  ')}`,
      `  工作进程 / workers  ${cluster.workers.length}`,
      `  Temporal   ${cluster.temporalAddress}  server ${cluster.temporalVersion} (${TEMPORAL_SERVER_VERSION} built from source), persistence + visibility: PostgreSQL (postgres12) temporal, temporal_visibility`,
      `  Temporal UI  ${cluster.temporalUiUrl}/namespaces/${cluster.env.TEMPORAL_NAMESPACE ?? 'default'}/workflows   (ui-server ${TEMPORAL_UI_VERSION}; the admin API's temporal_ui_url links open it)`,
      `  管理员 / admin  ${admin.username}${admin.password ? `  密码 / password: ${admin.password}  (仅显示一次 / shown once)` : '  (密码未变 / password unchanged)'}`,
      ...demoAccountLines(shownOnce),
      ...sandboxLines(sandboxes),
      `  数据 / data  ${dataDir}`,
      '  Ctrl-C 停止全部进程 / stops everything',
      '',
    ].join('\n'),
  );
}

main().catch(async (err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  console.error(`[cluster] ${err instanceof ClusterUnavailableError ? '' : '启动失败 / start failed: '}${message}`);
  await shutdown(1);
});

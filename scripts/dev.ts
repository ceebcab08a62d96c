import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '../lib/config.js';
import { createSecretBox } from '../lib/crypto.js';
import { createLogger } from '../lib/logger.js';
import { runMigrations } from '../db/migrate.js';
import { seedDemoData, DEMO_CLIENT } from './seeders/demo.js';
import { seedDemoAccessToken } from './seeders/access-tokens.js';
import { DEMO_PENDING_CLIENT, DEMO_VERIFIED_CLIENT, seedIdentityDemo } from './seeders/identity.js';
import { seedOperationsDemo } from './seeders/operations.js';
import { configureBuiltInPlugins } from './seeders/plugins.js';
import { seedDemoCatalogue } from './seeders/catalogue.js';
import { DEMO_INVITEE, seedDemoMarketing } from './seeders/marketing.js';
import { seedDemoSupplier } from './seeders/supplier.js';
import { seedDemoUpgradableService } from './seeders/upgrades.js';
import { seedDemoConsole } from './seeders/console.js';
import { seedDemoSupport } from './seeders/support.js';
import { seedTwoFactorAdmin } from './seeders/security.js';
import { type RunningSandboxes, startSandboxes } from '../sandbox/launcher.js';
import { createDatabase } from '../db/sequelize.js';
import { ensureSuperAdmin } from '../domain/admins/bootstrap.js';
import { type Child, startNodeChild, stopChild } from './lib/children.js';
import { envPort } from './lib/ports.js';
import { ensureDatabase, type RunningPostgres, startEmbeddedPostgres } from './lib/postgres.js';
import { devSandboxSecrets } from './lib/sandbox-secrets.js';
import { devSecretKey } from './lib/secret-key.js';
import { ensureTemporalCli } from './lib/temporal-cli.js';
import { type RunningTemporal, startTemporalDevServer } from './lib/temporal-server.js';

const log = (m: string) => console.log(`[dev] ${m}`);
const stops: Array<() => Promise<void>> = [];
let stopping = false;

async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    log('停止所有进程 / stopping…');
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => log(`stop failed: ${String(err)}`));
  }
  process.exit(code);
}

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
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

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
    stops.push(() => pg.stop());
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
    stops.push(() => temporal.stop());
    temporalAddress = temporal.address;
    temporalUiUrl = temporal.uiUrl ?? temporalUiUrl;
  }

  const sandboxSecrets = devSandboxSecrets(dataDir);
  log('启动沙箱第三方 / starting sandbox third parties');
  const sandboxes: RunningSandboxes = await startSandboxes({
    merchantPublicKeyPem: sandboxSecrets.merchantPublicKeyPem,
    // The upstream keeps its hosts and orders across restarts, as a real one does: a restarted
    // demo must not hand out host ids our services already hold.
    upstreamStateFile: join(dataDir, 'sandbox-upstream.json'),
    ports: {
      qrpay: envPort('SANDBOX_QRPAY_PORT', 18101),
      certify: envPort('SANDBOX_CERTIFY_PORT', 18102),
      sms: envPort('SANDBOX_SMS_PORT', 18103),
      mail: envPort('SANDBOX_MAIL_PORT', 18104),
      smtp: envPort('SANDBOX_SMTP_PORT', 18125),
      upstream: envPort('SANDBOX_UPSTREAM_PORT', 18105),
    },
  });
  stops.push(() => sandboxes.stop());

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
  const twoFactorAdmin = await seedTwoFactorAdmin(deps);
  const seeded = await seedDemoData(deps);
  if (seeded.created.length) log(`演示数据 / demo data: ${seeded.created.join(', ')}`);
  const operations = await seedOperationsDemo(deps);
  if (operations.length) log(`运维演示数据 / operations demo data: ${operations.join(', ')}`);
  const plugins = await configureBuiltInPlugins(deps, sandboxes, sandboxSecrets);
  log(`内置插件已配置并启用 / built-in plugins enabled against the sandboxes: ${plugins.join(', ')}`);
  // After the plugins: the demo product of type `other` binds to the enabled upstream plugin.
  const catalogue = await seedDemoCatalogue(deps);
  if (catalogue.created.length) log(`演示商品目录 / demo catalogue: ${catalogue.created.join(', ')}`);
  const identities = await seedIdentityDemo(deps);
  if (identities.length) log(`实名认证演示数据 / verification demo data: ${identities.join(', ')}`);
  const supplied = await seedDemoSupplier(deps, sandboxes.upstream.baseUrl);
  if (supplied.length) log(`演示供应商与上游商品 / demo supplier and upstream products: ${supplied.join(', ')}`);
  const upgradable = await seedDemoUpgradableService(deps);
  if (upgradable.length) log(`演示服务（升降级） / demo service with upgrade options: ${upgradable.join(', ')}`);
  const consoleDemo = await seedDemoConsole(deps).catch((err: unknown) => {
    log(`演示控制台数据未写入 / demo console data skipped: ${err instanceof Error ? err.message : String(err)}`);
    return [];
  });
  if (consoleDemo.length) log(`演示控制台 / demo console: ${consoleDemo.join(', ')}`);
  const support = await seedDemoSupport(deps);
  if (support.length) log(`演示工单与内容 / demo tickets and content: ${support.join(', ')}`);
  const marketing = await seedDemoMarketing(deps);
  if (marketing.length) log(`演示营销数据 / demo marketing: ${marketing.join(', ')}`);
  const demoToken = await seedDemoAccessToken(deps);
  await db.close();

  const worker = startNodeChild('worker', 'activities/worker.ts', env);
  stops.push(() => stopChild(worker));
  // No balancer in dev: the API stops without the drain (README "Stopping"), unless the variable is set.
  const api = startNodeChild('api', 'api/main.ts', { SHUTDOWN_DRAIN_SECONDS: '0', ...env });
  stops.push(() => stopChild(api));
  for (const child of [worker, api]) {
    void child.exited.then((code) => {
      if (!stopping) {
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
    twoFactorAdmin
      ? `  两步验证管理员 / admin with 2FA  ${twoFactorAdmin.username}  密码 / password: ${twoFactorAdmin.password}  TOTP 密钥 / secret: ${twoFactorAdmin.secret}  (仅显示一次 / shown once)`
      : '  两步验证管理员 / admin with 2FA  security-admin  (已存在，密码与密钥未变 / exists, unchanged)',
    `  演示客户 / demo client  ${DEMO_CLIENT.email}  ${DEMO_CLIENT.password}`,
    `  演示客户令牌 / demo client token  ${demoToken.token ? `${demoToken.token}  (read, purchase, console; 365 天 / days; 仅显示一次 / shown once)` : '(已创建，不再显示 / created earlier, not shown again)'}`,
    `  实名演示 / verification demo  ${DEMO_VERIFIED_CLIENT.email} (已实名)  ${DEMO_PENDING_CLIENT.email} (认证中)  ${DEMO_VERIFIED_CLIENT.password}`,
    `  被邀请的演示客户 / demo invitee  ${DEMO_INVITEE.email}  ${DEMO_INVITEE.password}  (优惠码 / coupons: WELCOME10, OPEN2026)`,
    '  沙箱 / sandboxes',
    `    QR 支付网关 / QR gateway   ${sandboxes.qrpay.baseUrl}  (扫码页 / pay page: /scan/<单号>)`,
    `    实名认证 / certify         ${sandboxes.certify.baseUrl}`,
    `    短信 / SMS                 ${sandboxes.sms.baseUrl}/__control/messages`,
    `    邮件 / mail sink           ${sandboxes.mail.baseUrl}/messages  (SMTP ${sandboxes.mail.smtpHost}:${sandboxes.mail.smtpPort})`,
    `    上游供应商 / upstream       ${sandboxes.upstream.baseUrl}`,
    '  Ctrl-C 停止全部进程 / stops everything',
    '',
  ];
  console.log(lines.join('\n'));
}

main().catch(async (err: unknown) => {
  console.error(`[dev] 启动失败 / start failed: ${err instanceof Error ? err.message : String(err)}`);
  await shutdown(1);
});

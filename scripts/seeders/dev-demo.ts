// The demo data of `npm run dev` and `npm run cluster`: one list of seeders, one set of printed lines.
import type { DomainDeps } from '../../domain/deps.js';
import type { RunningSandboxes } from '../../sandbox/launcher.js';
import type { SandboxSecrets } from '../lib/sandbox-secrets.js';
import { seedDemoCatalogue } from './catalogue.js';
import { seedDemoConsole } from './console.js';
import { seedReconciliationDemo } from './economics-reconciliation.js';
import { DEMO_CLIENT, seedDemoData } from './demo.js';
import { DEMO_PENDING_CLIENT, DEMO_VERIFIED_CLIENT, seedIdentityDemo } from './identity.js';
import { DEMO_INVITEE, seedDemoMarketing } from './marketing.js';
import { seedOperationsDemo } from './operations.js';
import { configureBuiltInPlugins } from './plugins.js';
import { seedDemoBackupSupplier, seedDemoSupplier } from './supplier.js';
import { seedEconomicsDriftDemo } from './economics-drift.js';
import { seedDemoSupport } from './support.js';
import { seedDemoUpstreamFunds } from './upstream-funds.js';
import { seedDemoUpgradableService } from './upgrades.js';
import { seedDemoAccessToken } from './access-tokens.js';
import { seedTwoFactorAdmin } from './security.js';
import { seedDemoEconomics } from './economics-costs.js';

/** What the demo shows only on the start that creates it (then it is gone: only hashes and sealed values are kept). */
export type DemoShownOnce = {
  twoFactorAdmin: { username: string; password: string; secret: string } | null;
  clientToken: string | null;
};

/** Seeds what is missing (every seeder is idempotent), logging what it created. */
export async function seedDevDemo(deps: DomainDeps, sandboxes: RunningSandboxes, sandboxSecrets: SandboxSecrets, log: (m: string) => void): Promise<DemoShownOnce> {
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
  // Before the funds: its balance is read with the first supplier's.
  const backup = await seedDemoBackupSupplier(deps, sandboxes.upstream2.baseUrl).catch((err: unknown) => {
    log(`备用供应商演示数据未写入 / backup supplier demo skipped: ${err instanceof Error ? err.message : String(err)}`);
    return [];
  });
  if (backup.length) log(`备用供应商（同一商品多个上游） / backup supplier (one product, two upstreams): ${backup.join(', ')}`);
  const drift = await seedEconomicsDriftDemo(deps, sandboxes).catch((err: unknown) => {
    log(`价格漂移演示数据未写入 / price drift demo skipped: ${err instanceof Error ? err.message : String(err)}`);
    return [];
  });
  if (drift.length) log(`上游价格漂移演示 / upstream price drift demo: ${drift.join(', ')}`);
  const funds = await seedDemoUpstreamFunds(deps).catch((err: unknown) => {
    log(`上游余额演示数据未写入 / upstream funds demo skipped: ${err instanceof Error ? err.message : String(err)}`);
    return [];
  });
  if (funds.length) log(`上游余额与续费预测 / upstream balances and runway: ${funds.join(', ')}`);
  const upgradable = await seedDemoUpgradableService(deps);
  if (upgradable.length) log(`演示服务（升降级） / demo service with upgrade options: ${upgradable.join(', ')}`);
  const consoleDemo = await seedDemoConsole(deps).catch((err: unknown) => {
    log(`演示控制台数据未写入 / demo console data skipped: ${err instanceof Error ? err.message : String(err)}`);
    return [];
  });
  if (consoleDemo.length) log(`演示控制台 / demo console: ${consoleDemo.join(', ')}`);
  // After every seeder that binds services to sandbox hosts: the run compares them all.
  const reconciliation = await seedReconciliationDemo(deps, sandboxes.upstream).catch((err: unknown) => {
    log(`演示对账数据未写入 / demo reconciliation skipped: ${err instanceof Error ? err.message : String(err)}`);
    return [];
  });
  if (reconciliation.length) log(`演示上游对账 / demo reconciliation: ${reconciliation.join(', ')}`);
  const support = await seedDemoSupport(deps);
  if (support.length) log(`演示工单与内容 / demo tickets and content: ${support.join(', ')}`);
  const marketing = await seedDemoMarketing(deps);
  if (marketing.length) log(`演示营销数据 / demo marketing: ${marketing.join(', ')}`);
  const economics = await seedDemoEconomics(deps).catch((err: unknown) => {
    log(`毛利演示数据未写入 / demo margins skipped: ${err instanceof Error ? err.message : String(err)}`);
    return [];
  });
  if (economics.length) log(`毛利演示（经真实开通流程向上游购买） / demo margins (bought upstream through the real flow): ${economics.join(', ')}`);
  const clientToken = (await seedDemoAccessToken(deps)).token;
  return { twoFactorAdmin, clientToken };
}

/** The demo accounts, for the start-up block. */
export function demoAccountLines(shown: DemoShownOnce): string[] {
  const { twoFactorAdmin, clientToken } = shown;
  return [
    twoFactorAdmin
      ? `  两步验证管理员 / admin with 2FA  ${twoFactorAdmin.username}  密码 / password: ${twoFactorAdmin.password}  TOTP 密钥 / secret: ${twoFactorAdmin.secret}  (仅显示一次 / shown once)`
      : '  两步验证管理员 / admin with 2FA  security-admin  (已存在，密码与密钥未变 / exists, unchanged)',
    `  演示客户 / demo client  ${DEMO_CLIENT.email}  ${DEMO_CLIENT.password}`,
    `  演示客户令牌 / demo client token  ${clientToken ? `${clientToken}  (read, purchase, console; 365 天 / days; 仅显示一次 / shown once)` : '(已创建，不再显示 / created earlier, not shown again)'}`,
    `  实名演示 / verification demo  ${DEMO_VERIFIED_CLIENT.email} (已实名)  ${DEMO_PENDING_CLIENT.email} (认证中)  ${DEMO_VERIFIED_CLIENT.password}`,
    `  被邀请的演示客户 / demo invitee  ${DEMO_INVITEE.email}  ${DEMO_INVITEE.password}  (优惠码 / coupons: WELCOME10, OPEN2026)`,
  ];
}

/** The sandbox third parties, for the start-up block. */
export function sandboxLines(sandboxes: RunningSandboxes): string[] {
  return [
    '  沙箱 / sandboxes',
    `    QR 支付网关 / QR gateway   ${sandboxes.qrpay.baseUrl}  (扫码页 / pay page: /scan/<单号>)`,
    `    实名认证 / certify         ${sandboxes.certify.baseUrl}`,
    `    短信 / SMS                 ${sandboxes.sms.baseUrl}/__control/messages`,
    `    邮件 / mail sink           ${sandboxes.mail.baseUrl}/messages  (SMTP ${sandboxes.mail.smtpHost}:${sandboxes.mail.smtpPort})`,
    `    上游供应商 / upstream       ${sandboxes.upstream.baseUrl}`,
    `    备用上游 / backup upstream  ${sandboxes.upstream2.baseUrl}  (供应商 / supplier: 备用云（演示）)`,
  ];
}

import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createDatabase } from '../../db/sequelize.js';
import { inTransaction } from '../../db/sql.js';
import { issueSession } from '../../domain/auth/sessions.js';
import { systemAudit } from '../../domain/billing/audit.js';
import { insertInvoice } from '../../domain/billing/invoices/insert-invoice.js';
import type { DomainDeps } from '../../domain/deps.js';
import { installPlugin } from '../../domain/plugins/plugin-install.js';
import { enablePlugin, updatePluginConfig } from '../../domain/plugins/plugin-lifecycle.js';
import { VNC_RELAY_PATH } from '../../domain/services/console/vnc-tokens.js';
import { NO_MARKUP } from '../../domain/suppliers/price-rule.js';
import { pullSupplierProducts } from '../../domain/suppliers/product-import.js';
import { createSupplier } from '../../domain/suppliers/suppliers.js';
import { loadConfig } from '../../lib/config.js';
import { createSecretBox } from '../../lib/crypto.js';
import { createLogger } from '../../lib/logger.js';
import { SANDBOX_CREDENTIALS } from '../../sandbox/launcher.js';
import { startUpstreamFinanceSandbox } from '../../sandbox/upstream-finance/server.js';
import { connectRfb, fullUpdateRequest, type RfbSession } from '../../test/helpers/rfb-client.js';
import { formatPeakRss, type PeakRss, watchPeakRss } from '../lib/rss.js';
import { startServerChild } from '../lib/server-child.js';

/** The console's framebuffer in this bench: 1024×768 at 32 bits, about 3 MB per full update. */
const WIDTH = 1024;
const HEIGHT = 768;
/** Full-screen update requests each session keeps outstanding. */
const IN_FLIGHT = 2;
/** Measured rounds per side, alternating between the API relay and the bare relay. */
const ROUNDS = 5;
/** Sandbox product 102 (no stock control) and its first account host. */
const UPSTREAM_PRODUCT_ID = 102;

export type ConsoleSide = { name: string; sessions: number; bytes: number; seconds: number; megabytesPerSecond: number; framesPerSecond: number; failed: number };

export type ConsoleBenchResult = {
  sessions: number;
  frameBytes: number;
  ours: ConsoleSide;
  bare: ConsoleSide;
  /** Median over the rounds of (API relay bytes/s ÷ bare relay bytes/s), each round measuring both sides back to back. */
  ratio: number;
  roundRatios: number[];
  goal: { label: string; minRatio: number; pass: boolean };
  /** Peak resident set sizes from the first session opened to the last round: the API's with its target, the bare relay's beside it. (No worker runs here.) */
  rss: PeakRss;
};

type Answer<T> = { code: number; message: string; data: T };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Drives a set of sessions: while running, each keeps IN_FLIGHT full-screen update requests
 * outstanding (one more whenever another frame's worth of bytes arrived); bytes are counted only
 * while measuring. Stopped, it asks for nothing more and lets what is under way arrive.
 */
class Load {
  private running = false;
  private counting = false;
  private readonly pumps: Array<() => void> = [];
  bytes = 0;
  seconds = 0;

  constructor(
    readonly sessions: RfbSession[],
    frameBytes: number,
  ) {
    const request = fullUpdateRequest(WIDTH, HEIGHT);
    for (const session of sessions) {
      let received = 0;
      let requested = 0;
      const pump = () => {
        while (this.running && requested * frameBytes - received < IN_FLIGHT * frameBytes) {
          requested += 1;
          session.sendRaw(request);
        }
      };
      session.stream((bytes) => {
        received += bytes.length;
        if (this.counting) this.bytes += bytes.length;
        pump();
      });
      this.pumps.push(pump);
    }
  }

  /** One measured stretch; answers its throughput in bytes per second. */
  async run(warmupSeconds: number, seconds: number, signal: AbortSignal): Promise<number> {
    const before = this.bytes;
    this.running = true;
    for (const pump of this.pumps) pump();
    await sleep(warmupSeconds * 1000);
    signal.throwIfAborted();
    this.counting = true;
    const started = performance.now();
    await sleep(seconds * 1000);
    this.counting = false;
    const measured = (performance.now() - started) / 1000;
    this.seconds += measured;
    this.running = false;
    // The frames still under way arrive before the other side runs.
    await sleep(1000);
    return (this.bytes - before) / measured;
  }

  close(): void {
    for (const session of this.sessions) session.close();
  }
}

/** Opens `count` sessions at once; a session that cannot be opened is counted, not fatal. */
async function openSessions(count: number, log: (m: string) => void, open: () => Promise<RfbSession>): Promise<{ sessions: RfbSession[]; failed: number }> {
  const opened = await Promise.all(
    Array.from({ length: count }, () =>
      open().then(
        (rfb) => rfb,
        (err: unknown) => {
          log(`  session failed: ${err instanceof Error ? err.message : String(err)}`);
          return null;
        },
      ),
    ),
  );
  const sessions = opened.filter((s): s is RfbSession => s !== null);
  return { sessions, failed: count - sessions.length };
}

function side(name: string, sessions: number, frameBytes: number, measured: Load, failed: number): ConsoleSide {
  return {
    name,
    sessions,
    bytes: measured.bytes,
    seconds: measured.seconds,
    megabytesPerSecond: measured.bytes / measured.seconds / 1024 / 1024,
    framesPerSecond: measured.bytes / frameBytes / measured.seconds,
    failed,
  };
}

/**
 * `sessions` concurrent console sessions relaying the sandbox console's framebuffer: through the
 * API (public token, relay token, the relay's own VNC authentication) and through a bare
 * websocket relay process in front of the same sandbox console (the client authenticates
 * itself), in alternating rounds. Prints both throughputs and the ratio (target ≥ 70 %).
 */
export async function runConsoleBench(ctx: {
  api: string;
  databaseUrl: string;
  temporalAddress: string;
  secretKey: string;
  sessions: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** Pid of the API process (its resident set size is sampled). */
  apiPid: number | undefined;
  signal: AbortSignal;
  log: (m: string) => void;
}): Promise<ConsoleBenchResult> {
  const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: ctx.databaseUrl, TEMPORAL_ADDRESS: ctx.temporalAddress, APP_SECRET_KEY: ctx.secretKey });
  const db = createDatabase({ url: config.databaseUrl, poolMax: 4 });
  const deps: DomainDeps = { config, db, logger: createLogger('warn', 'bench-console'), secretBox: createSecretBox(config.secretKey) };
  const sandbox = await startUpstreamFinanceSandbox({ accounts: [SANDBOX_CREDENTIALS.upstream], console: { width: WIDTH, height: HEIGHT } });
  const bareRelay = await startServerChild({
    name: 'bare-relay',
    entry: fileURLToPath(new URL('./bare-relay.ts', import.meta.url)),
    env: { ...process.env },
    readyPath: '/health',
    signal: ctx.signal,
    log: ctx.log,
    // BENCH_CPU_PROF=<dir>: a profile of the bare relay beside the API's.
    ...(process.env.BENCH_CPU_PROF ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] } : {}),
  });
  const frameBytes = 16 + WIDTH * HEIGHT * 4;
  try {
    const plugin = (await db.models.Plugin.findOne({ where: { domain: 'upstream', slug: 'upstream_finance' } })) ?? (await installPlugin(deps, 'upstream', 'upstream_finance'));
    if (plugin.status !== 'enabled') {
      await updatePluginConfig(deps, plugin.id, { base_url: sandbox.baseUrl, account: SANDBOX_CREDENTIALS.upstream.username, api_key: SANDBOX_CREDENTIALS.upstream.apiKey, timeout_ms: 30_000 });
      await enablePlugin(deps, plugin.id);
    }
    const supplier = await createSupplier(deps, {
      code: `console-${randomBytes(3).toString('hex')}`,
      name: '控制台压测供应商',
      interface_type: 'upstream_finance_api',
      base_url: sandbox.baseUrl,
      account: SANDBOX_CREDENTIALS.upstream.username,
      api_key: SANDBOX_CREDENTIALS.upstream.apiKey,
    });
    const { ProductMenu, ProductGroup, ProductCategory, User, Order, Service, ServiceUpstreamBinding } = db.models;
    const menu = await ProductMenu.create({ code: `console_${randomBytes(4).toString('hex')}`, name: '控制台压测', product_type: 'cloud_server' });
    const group = await ProductGroup.create({ first_product_group_id: menu.id, name: '压测' });
    const category = await ProductCategory.create({ second_product_group_id: group.id, name: '压测' });
    const pulled = await pullSupplierProducts(deps, supplier.id, { upstream_product_ids: [UPSTREAM_PRODUCT_ID], product_group_id: category.id, price_rule: NO_MARKUP, status: 'active' }, { type: 'system', id: null, name: 'bench' });
    const productId = pulled.imported[0]?.product_id;
    if (!productId) throw new Error(`product import failed: ${JSON.stringify(pulled.skipped)}`);

    // One user with one active service bound to the sandbox's first host, as provisioning leaves it.
    const user = await User.create({ email: `console-bench-${randomBytes(4).toString('hex')}@example.test`, phone: null, nickname: '控制台压测', password_hash: 'bench-not-a-hash', status: 'active' });
    const token = (await issueSession(deps, 'client', user.id, { ip: '127.0.0.1', userAgent: 'bench' })).access_token;
    const { invoice, order } = await inTransaction(deps, (tx) =>
      insertInvoice(
        deps,
        {
          userId: user.id,
          type: 'purchase',
          status: 'paid',
          subject: '控制台压测',
          amount: '0.00',
          paymentChannel: 'free',
          settled: true,
          payload: { product_id: productId, quantity: 1, billing_period: 'monthly' },
          items: [{ key: 'base', description: '控制台压测', unitAmount: '0.00', quantity: 1, amount: '0.00' }],
          order: { productId, billingPeriod: 'monthly', quantity: 1, config: {} },
          audit: systemAudit('bench-console'),
        },
        tx,
      ),
    );
    await Order.update({ status: 'completed', paid_at: new Date(), completed_at: new Date() }, { where: { id: order?.id ?? 0 } });
    const hostId = 5001;
    const service = await Service.create({
      user_id: user.id,
      product_id: productId,
      order_id: order?.id ?? 0,
      invoice_id: invoice.id,
      status: 'active',
      product_type: 'cloud_server',
      billing_period: 'monthly',
      config: {},
      price: '0.00',
      next_due_at: new Date(Date.now() + 20 * 86_400_000),
      product_name: '控制台压测',
      console_template: 'compute',
      provider_key: 'upstream_finance_api',
      plugin_key: 'upstream_finance',
      supplier_id: supplier.id,
      hostname: `srv${hostId}.example.net`,
      password_sealed: '',
      ip: '203.0.113.10',
      username: 'root',
      port: 22,
      os: 'CentOS 7.9 64位',
      activated_at: new Date(),
    });
    await ServiceUpstreamBinding.create({
      service_id: service.id,
      product_id: productId,
      supplier_id: supplier.id,
      plugin_id: plugin.id,
      provider_key: 'upstream_finance_api',
      upstream_product_id: String(UPSTREAM_PRODUCT_ID),
      upstream_host_id: hostId,
      bound_at: new Date(),
    });

    const rss = watchPeakRss({ api: ctx.apiPid, 'bare relay': bareRelay.child.process.pid });
    ctx.log(`console: opening ${ctx.sessions} sessions through the API relay (public token → relay token → websocket), ${WIDTH}×${HEIGHT} framebuffer…`);
    const relayBase = `${ctx.api.replace(/^http/, 'ws')}${VNC_RELAY_PATH}`;
    const ours = await openSessions(ctx.sessions, ctx.log, async () => {
      const opened = (await (await fetch(`${ctx.api}/api/v2/client/services/${service.id}/vnc`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).json()) as Answer<{ token: string }>;
      if (opened.code !== 0) throw new Error(opened.message);
      const redeemed = (await (await fetch(`${ctx.api}/api/v2/client/vnc-tokens/${opened.data.token}`)).json()) as Answer<{ relay_token: string }>;
      if (redeemed.code !== 0) throw new Error(redeemed.message);
      return connectRfb(`${relayBase}?token=${redeemed.data.relay_token}`);
    });

    ctx.log(`console: opening ${ctx.sessions} sessions through the bare relay (the client authenticates to the sandbox itself)…`);
    const login = (await (
      await fetch(`${sandbox.baseUrl}/finance_api_login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: SANDBOX_CREDENTIALS.upstream.username, password: SANDBOX_CREDENTIALS.upstream.apiKey }).toString(),
      })
    ).json()) as { jwt: string };
    const bare = await openSessions(ctx.sessions, ctx.log, async () => {
      const ticket = (await (
        await fetch(`${sandbox.baseUrl}/provision/default`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${login.jwt}` },
          body: new URLSearchParams({ id: String(hostId), func: 'vnc' }).toString(),
        })
      ).json()) as { data: { url: string; pass: string } };
      const target = encodeURIComponent(ticket.data.url.replace(/^http/, 'ws'));
      return connectRfb(`${bareRelay.baseUrl.replace(/^http/, 'ws')}/relay?target=${target}`, { password: ticket.data.pass });
    });

    // Rounds, alternating: a machine whose load drifts during the run weighs on both sides alike.
    const oursLoad = new Load(ours.sessions, frameBytes);
    const bareLoad = new Load(bare.sessions, frameBytes);
    const roundRatios: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const oursRate = await oursLoad.run(round === 0 ? ctx.warmupSeconds : 1, ctx.durationSeconds / ROUNDS, ctx.signal);
      const bareRate = await bareLoad.run(round === 0 ? ctx.warmupSeconds : 1, ctx.durationSeconds / ROUNDS, ctx.signal);
      roundRatios.push(bareRate > 0 ? oursRate / bareRate : 0);
      ctx.log(`console: round ${round + 1}/${ROUNDS}: API relay ${(oursRate / 1048576).toFixed(0)} MB/s, bare ${(bareRate / 1048576).toFixed(0)} MB/s`);
    }
    oursLoad.close();
    bareLoad.close();
    const peakRss = rss.stop();

    const oursSide = side('api  console relay (token, VNC auth, events)', ours.sessions.length, frameBytes, oursLoad, ours.failed);
    const bareSide = side('bare websocket relay', bare.sessions.length, frameBytes, bareLoad, bare.failed);
    // The median of the rounds' ratios: a burst of other load on the machine during one stretch moves one round, not the result.
    const ratio = [...roundRatios].sort((a, b) => a - b)[Math.floor(roundRatios.length / 2)] ?? 0;
    const minRatio = 0.7;
    return {
      sessions: ctx.sessions,
      frameBytes,
      ours: oursSide,
      bare: bareSide,
      ratio,
      roundRatios,
      goal: { label: 'console relay throughput ≥ 70% of a bare websocket relay', minRatio, pass: ours.failed + bare.failed === 0 && ratio >= minRatio },
      rss: peakRss,
    };
  } finally {
    await bareRelay.stop();
    await sandbox.stop();
    await db.close();
  }
}

export function formatConsoleTable(r: ConsoleBenchResult): string {
  const line = (s: ConsoleSide) =>
    `  ${s.name.padEnd(46)} ${String(s.sessions).padStart(3)} sessions  ${s.megabytesPerSecond.toFixed(1).padStart(8)} MB/s  ${s.framesPerSecond.toFixed(1).padStart(7)} frames/s  failed ${s.failed}`;
  return [
    `控制台压测 / console: ${r.sessions} concurrent sessions, full-screen raw updates of ${(r.frameBytes / 1024 / 1024).toFixed(2)} MB`,
    line(r.ours),
    line(r.bare),
    `  ours/bare ${(r.ratio * 100).toFixed(1)}% (median of ${r.roundRatios.length} alternating rounds: ${r.roundRatios.map((x) => `${(x * 100).toFixed(0)}%`).join(', ')})`,
    `  目标 / target: ${r.goal.label} → ${r.goal.pass ? 'PASS' : 'MISS'}`,
    `  ${formatPeakRss(r.rss)}`,
  ].join('\n');
}

import { createDatabase } from '../../db/sequelize.js';
import { checkLedgerIntegrity } from '../../domain/billing/integrity/check-ledger-integrity.js';
import { loadConfig } from '../../lib/config.js';
import { createSecretBox } from '../../lib/crypto.js';
import { createLogger } from '../../lib/logger.js';
import { formatPeakRss, type PeakRss, watchPeakRss } from '../lib/rss.js';
import { type CountedRequest, type CountedResult, driveCounted, driveSpaced } from './drive.js';
import type { MoneySeed } from './seed-money.js';
import {
  BURST_TAIL_GAP_MS,
  FULFILMENT_P99_AFTER_S,
  FULFILMENT_P99_DURING_S,
  type FulfilmentTiming,
  formatFulfilmentTiming,
  measureFulfilment,
  startBenchRelay,
} from './fulfilment-timing.js';
import { stopChild } from '../../scripts/lib/children.js';

export type MoneyPairResult = {
  name: string;
  ours: CountedResult;
  bare: CountedResult;
  ratio: number;
  /** Violations of the money invariants after both runs (must be 0). */
  integrityViolations: number;
  /** What the run must have left behind, checked in the database. */
  exactlyOnce: { expected: number; found: number };
  extra?: Record<string, number>;
  /** Balance payments and notifications: how long their fulfilment took to start (the bench's relay process performs the outbox). */
  fulfilment?: FulfilmentTiming;
  /** The same for the baseline, whose bare relay makes one Temporal call per row on the same server. */
  bareFulfilment?: FulfilmentTiming;
  /** Target: ours at least `minRatio` of the baseline's operations per second (reported, never failing the run). */
  goal: { label: string; minRatio: number; pass: boolean };
  /** Peak resident set sizes during the pair: the API's with its target, the bare server's beside it. */
  rss: PeakRss;
};

/** Balance payments and notifications: ours at least this share of the bare SQL baseline's rate. */
const MIN_RATIO_OF_BARE_SQL = 0.8;

function envelopeOk(status: number, body: string): string | null {
  if (status !== 200) return `HTTP ${status}: ${body.slice(0, 200)}`;
  try {
    const parsed = JSON.parse(body) as { code?: number };
    return parsed.code === 0 ? null : `code ${parsed.code}`;
  } catch {
    return 'not JSON';
  }
}

function plainSuccess(status: number, body: string): string | null {
  return status === 200 && body === 'success' ? null : `HTTP ${status}: ${body.slice(0, 200)}`;
}

/** Every notification twice (half the requests are duplicates), in a fixed pseudo-random order. */
function withDuplicates(fields: Array<Record<string, string>>): Array<Record<string, string>> {
  const all = [...fields, ...fields];
  let seed = 20_261_124;
  for (let i = all.length - 1; i > 0; i--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = seed % (i + 1);
    [all[i], all[j]] = [all[j] as Record<string, string>, all[i] as Record<string, string>];
  }
  return all;
}

function form(url: string, fields: Record<string, string>, check: CountedRequest['check']): CountedRequest {
  return {
    url,
    init: { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }, body: new URLSearchParams(fields).toString() },
    check,
  };
}

/**
 * Balance payments per second and notifications per second (half duplicates), each against the
 * bare baseline in the same run (the same SQL, and a bare relay making one Temporal call per
 * payment on the same server), each followed by the ledger integrity check and an exactly-once
 * count in the database. Our outbox relay and the bare one run in their own processes throughout
 * (ours as in a worker process); after each side's run the bench waits until every paid
 * invoice's fulfilment started and reports commit → workflow start (p50, p99, max) during the
 * burst, the drain time, and for balance payments the same for the payments sent one at a time
 * after the burst.
 */
export async function runMoneyBenches(ctx: {
  api: string;
  bare: string;
  seed: MoneySeed;
  databaseUrl: string;
  temporalAddress: string;
  secretKey: string;
  /** The relay process's pool (the API's size). */
  poolMax: number;
  concurrency: number;
  /** Pids whose peak resident set size each pair samples: `api`, `bare server`. */
  processes: Record<string, number | undefined>;
  signal: AbortSignal;
  log: (m: string) => void;
}): Promise<MoneyPairResult[]> {
  const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: ctx.databaseUrl, TEMPORAL_ADDRESS: ctx.temporalAddress, APP_SECRET_KEY: ctx.secretKey });
  const db = createDatabase({ url: config.databaseUrl, poolMax: 2 });
  const deps = { config, db, logger: createLogger('warn', 'bench'), secretBox: createSecretBox(config.secretKey) };
  const count = async (sql: string) => Number((await db.read<{ n: string }>(sql))[0]?.n ?? 0);
  const relayEnv = { databaseUrl: ctx.databaseUrl, temporalAddress: ctx.temporalAddress, secretKey: ctx.secretKey, poolMax: ctx.poolMax };
  const relay = await startBenchRelay('ours', relayEnv, ctx.signal);
  // The baseline's relay: one Temporal call per payment on the same server (bench/money/bare-relay.ts).
  const bareRelay = await startBenchRelay('bare', relayEnv, ctx.signal).catch(async (err: unknown) => {
    await stopChild(relay);
    throw err;
  });
  // BENCH_MONEY_RELAY=after: the relay is held (SIGSTOP) while our payments or notifications run
  // and let go right after, so the request path is measured alone and the workflow starts all
  // happen after the burst (the drain shows them). By default it runs throughout, as in a worker
  // process beside the API, sharing the machine's cores with it and with Temporal.
  const holdRelay = process.env.BENCH_MONEY_RELAY === 'after';
  const relayHeld = (held: boolean, which = relay) => {
    if (holdRelay) which.process.kill(held ? 'SIGSTOP' : 'SIGCONT');
  };
  if (holdRelay) ctx.log('relay held during our bursts (BENCH_MONEY_RELAY=after)');
  try {
    const results: MoneyPairResult[] = [];
    const { seed, concurrency, signal } = ctx;

    // The last few payments of each side go one at a time after its burst: commit → start once the burst is over.
    const tail = Math.min(50, Math.floor(seed.balanceOurs.length / 10), Math.floor(seed.balanceBare.length / 10));
    const oursBurst = seed.balanceOurs.slice(0, seed.balanceOurs.length - tail);
    const oursTail = seed.balanceOurs.slice(seed.balanceOurs.length - tail);
    const bareBurst = seed.balanceBare.slice(0, seed.balanceBare.length - tail);
    const bareTail = seed.balanceBare.slice(seed.balanceBare.length - tail);
    ctx.log(`balance payments: ${oursBurst.length} through the API, ${bareBurst.length} bare, ${concurrency} in flight, then ${tail} each one at a time…`);
    let rss = watchPeakRss(ctx.processes);
    const paidBefore = await count(`SELECT count(*) AS n FROM invoices WHERE type = 'purchase' AND payment_channel = 'balance'`);
    const payRequest = ({ invoiceId, token }: { invoiceId: number; token: string }): CountedRequest => ({
      url: `${ctx.api}/api/v2/client/invoices/${invoiceId}/pay/balance`,
      init: { method: 'POST', headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
      check: envelopeOk,
    });
    const barePayRequest = (id: number): CountedRequest => ({ url: `${ctx.bare}/pay-balance/${id}`, init: { method: 'POST' }, check: envelopeOk });
    relayHeld(true);
    const oursPay = await driveCounted('api  POST /api/v2/client/invoices/{id}/pay/balance', oursBurst.map(payRequest), concurrency, signal);
    relayHeld(false);
    const oursPaidAt = Date.now();
    const oursAfter = await driveSpaced('api  pay/balance after the burst', oursTail.map(payRequest), BURST_TAIL_GAP_MS, signal);
    // Provisioning starts follow each payment in the background; the baseline runs only once they are done.
    const payFulfilment = await measureFulfilment(db, oursBurst.map((b) => b.invoiceId), oursPaidAt, oursTail.map((b) => b.invoiceId));
    ctx.log(`  ${formatFulfilmentTiming(payFulfilment)}`);
    relayHeld(true, bareRelay);
    const barePay = await driveCounted('bare POST /pay-balance/{id} (same SQL, bare relay)', bareBurst.map(barePayRequest), concurrency, signal);
    relayHeld(false, bareRelay);
    const barePaidAt = Date.now();
    const bareAfter = await driveSpaced('bare pay-balance after the burst', bareTail.map(barePayRequest), BURST_TAIL_GAP_MS, signal);
    const barePayFulfilment = await measureFulfilment(db, bareBurst, barePaidAt, bareTail);
    ctx.log(`  ${formatFulfilmentTiming(barePayFulfilment, 'bare relay')}`);
    oursPay.failures += oursAfter.failures;
    oursPay.firstFailures.push(...oursAfter.firstFailures);
    barePay.failures += bareAfter.failures;
    barePay.firstFailures.push(...bareAfter.firstFailures);
    const paid = (await count(`SELECT count(*) AS n FROM invoices WHERE type = 'purchase' AND payment_channel = 'balance'`)) - paidBefore;
    const payViolations = (await checkLedgerIntegrity(deps)).length;
    const payRatio = oursPay.perSecond / barePay.perSecond;
    results.push({
      name: 'balance payments',
      ours: oursPay,
      bare: barePay,
      ratio: payRatio,
      integrityViolations: payViolations,
      exactlyOnce: { expected: seed.balanceOurs.length + seed.balanceBare.length, found: paid },
      fulfilment: payFulfilment,
      bareFulfilment: barePayFulfilment,
      goal: {
        label: `balance payments ≥ ${MIN_RATIO_OF_BARE_SQL * 100}% of the bare SQL baseline`,
        minRatio: MIN_RATIO_OF_BARE_SQL,
        pass: oursPay.failures === 0 && barePay.failures === 0 && payViolations === 0 && payRatio >= MIN_RATIO_OF_BARE_SQL,
      },
      rss: rss.stop(),
    });

    const oursNotes = withDuplicates(seed.notifyOurs);
    const bareNotes = withDuplicates(seed.notifyBare);
    rss = watchPeakRss(ctx.processes);
    ctx.log(`notifications: ${oursNotes.length} through the API, ${bareNotes.length} bare (half duplicates), ${concurrency} in flight…`);
    relayHeld(true);
    const oursNotify = await driveCounted(
      'api  POST /api/v2/client/payment/qrpay/notify',
      oursNotes.map((f) => form(`${ctx.api}/api/v2/client/payment/qrpay/notify`, f, plainSuccess)),
      concurrency,
      signal,
    );
    relayHeld(false);
    const notifyAnswered = Date.now();
    const notifiedInvoices = await db.read<{ invoice_id: number }>('SELECT invoice_id FROM payments WHERE payment_no = ANY($1)', [seed.notifyOurs.map((f) => f.out_trade_no)]);
    const notifyFulfilment = await measureFulfilment(db, notifiedInvoices.map((r) => r.invoice_id), notifyAnswered);
    ctx.log(`  ${formatFulfilmentTiming(notifyFulfilment)}`);
    relayHeld(true, bareRelay);
    const bareNotify = await driveCounted('bare POST /notify (same SQL, no signature, bare relay)', bareNotes.map((f) => form(`${ctx.bare}/notify`, f, plainSuccess)), concurrency, signal);
    relayHeld(false, bareRelay);
    const bareNotifyAnswered = Date.now();
    const bareNotified = await db.read<{ invoice_id: number }>('SELECT invoice_id FROM payments WHERE payment_no = ANY($1)', [seed.notifyBare.map((f) => f.out_trade_no)]);
    const bareNotifyFulfilment = await measureFulfilment(db, bareNotified.map((r) => r.invoice_id), bareNotifyAnswered);
    ctx.log(`  ${formatFulfilmentTiming(bareNotifyFulfilment, 'bare relay')}`);
    const settled = await count(`SELECT count(*) AS n FROM payments p JOIN recharge_records r ON r.payment_id = p.id WHERE p.status = 'paid'`);
    const notifyViolations = (await checkLedgerIntegrity(deps)).length;
    const notifyRatio = oursNotify.perSecond / bareNotify.perSecond;
    results.push({
      name: 'payment notifications (half duplicates)',
      ours: oursNotify,
      bare: bareNotify,
      ratio: notifyRatio,
      integrityViolations: notifyViolations,
      exactlyOnce: { expected: seed.notifyOurs.length + seed.notifyBare.length, found: settled },
      fulfilment: notifyFulfilment,
      bareFulfilment: bareNotifyFulfilment,
      goal: {
        label: `notifications ≥ ${MIN_RATIO_OF_BARE_SQL * 100}% of the bare SQL baseline`,
        minRatio: MIN_RATIO_OF_BARE_SQL,
        pass: oursNotify.failures === 0 && bareNotify.failures === 0 && notifyViolations === 0 && notifyRatio >= MIN_RATIO_OF_BARE_SQL,
      },
      rss: rss.stop(),
    });

    // Invoice creation with a coupon (priced, checked and its use reserved by guarded updates
    // in the invoice's transaction) against the same creation without one, in the same run.
    const inv = seed.invoices;
    const create = (withCoupon: boolean) =>
      Array.from({ length: inv.count }, (_, i) => ({
        url: `${ctx.api}/api/v2/client/invoices`,
        init: {
          method: 'POST',
          headers: { authorization: `Bearer ${inv.tokens[i % inv.tokens.length] ?? ''}`, 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ product_id: inv.productId, billing_period: 'monthly', ...(withCoupon ? { coupon_code: inv.couponCode } : {}) }),
        },
        check: envelopeOk,
      }));
    ctx.log(`invoice creation: ${inv.count} with a coupon, ${inv.count} without, ${concurrency} in flight…`);
    const couponUses = async () =>
      Number((await db.read<{ n: string }>('SELECT count(*) AS n FROM coupon_uses u JOIN coupons c ON c.id = u.coupon_id WHERE c.code = $1 AND c.used = (SELECT count(*) FROM coupon_uses x WHERE x.coupon_id = c.id)', [inv.couponCode]))[0]?.n ?? 0);
    const usesBefore = await couponUses();
    // Both sides go through the API: only its resident set size is watched.
    rss = watchPeakRss({ api: ctx.processes['api'] });
    const withCoupon = await driveCounted('api  POST /api/v2/client/invoices (coupon_code)', create(true), concurrency, signal);
    const without = await driveCounted('api  POST /api/v2/client/invoices (no coupon)', create(false), concurrency, signal);
    // One reserved use per coupon invoice, and the coupon's counter equal to its uses.
    const usesAfter = await couponUses();
    const couponViolations = (await checkLedgerIntegrity(deps)).length;
    const couponRatio = withCoupon.perSecond / without.perSecond;
    results.push({
      name: 'invoice creation with a coupon vs without',
      ours: withCoupon,
      bare: without,
      ratio: couponRatio,
      integrityViolations: couponViolations,
      exactlyOnce: { expected: inv.count, found: usesAfter - usesBefore },
      goal: {
        label: 'with a coupon ≥ 70% of the rate without',
        minRatio: 0.7,
        pass: withCoupon.failures === 0 && without.failures === 0 && couponViolations === 0 && couponRatio >= 0.7,
      },
      rss: rss.stop(),
    });
    return results;
  } finally {
    await Promise.all([stopChild(relay), stopChild(bareRelay)]);
    await db.close();
  }
}

export function formatMoneyTable(results: MoneyPairResult[]): string {
  const rows = results.flatMap((r) => [
    [r.ours.name, String(r.ours.requests), r.ours.perSecond.toFixed(0), r.ours.latencyMs.p50.toFixed(1), r.ours.latencyMs.p99.toFixed(1), String(r.ours.failures), `${(r.ratio * 100).toFixed(1)}%`],
    [r.bare.name, String(r.bare.requests), r.bare.perSecond.toFixed(0), r.bare.latencyMs.p50.toFixed(1), r.bare.latencyMs.p99.toFixed(1), String(r.bare.failures), ''],
  ]);
  const headers = ['name', 'requests', 'ops/s', 'p50 ms', 'p99 ms', 'failed', 'ours/bare'];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  const out = [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line), ''];
  for (const r of results) {
    out.push(
      `目标 / target: ${r.goal.label} — ${r.ours.perSecond.toFixed(0)}/s of ${r.bare.perSecond.toFixed(0)}/s, ${(r.ratio * 100).toFixed(1)}% → ${r.goal.pass ? 'PASS' : 'MISS'}; 一致性 / integrity violations ${r.integrityViolations}; exactly once ${r.exactlyOnce.found}/${r.exactlyOnce.expected}${r.integrityViolations === 0 && r.exactlyOnce.found === r.exactlyOnce.expected ? '' : ' (FAILS the run)'}`,
      `  ${formatPeakRss(r.rss)}`,
    );
    if (r.fulfilment) {
      out.push(`  ${formatFulfilmentTiming(r.fulfilment)}`);
      if (r.bareFulfilment) out.push(`  ${formatFulfilmentTiming(r.bareFulfilment, 'bare relay')}`);
      const f = r.fulfilment;
      const during = f.delayP99 < FULFILMENT_P99_DURING_S;
      const after = f.after ? f.after.delayP99 < FULFILMENT_P99_AFTER_S : null;
      out.push(
        `  目标 / target: commit → workflow start p99 < ${FULFILMENT_P99_DURING_S} s during the burst — ${f.delayP99.toFixed(2)} s → ${during ? 'PASS' : 'MISS'}` +
          (after === null ? '' : `; < ${FULFILMENT_P99_AFTER_S} s once it ended — ${f.after?.delayP99.toFixed(2)} s → ${after ? 'PASS' : 'MISS'}`),
      );
    }
    for (const f of [...r.ours.firstFailures, ...r.bare.firstFailures]) out.push(`  failure: ${f}`);
  }
  return out.join('\n');
}

import { fileURLToPath } from 'node:url';
import type { Database } from '../../db/sequelize.js';
import type { Child } from '../../scripts/lib/children.js';
import { startMutableNodeChild } from '../lib/node-child.js';
import { percentile } from '../lib/percentile.js';

/** How long fulfilment follows the payments of one run (issue #30, #35): commit → workflow start, and the backlog after the burst. */
export type FulfilmentTiming = {
  /** Invoices paid by the burst, and how many had their fulfilment dispatched (workflows started) by the end of the wait. */
  paid: number;
  dispatched: number;
  /** Seconds from the settlement (`invoices.paid_at`) to the recorded dispatch (`dispatched_at`), over the burst's invoices. */
  delayP50: number;
  delayP99: number;
  delayMax: number;
  /** Seconds from the burst's last answer until the last of its invoices was dispatched (0 when none was left). */
  drainSeconds: number;
  /**
   * The payments sent one at a time after the burst (from its last answer, BURST_TAIL_GAP_MS
   * apart): commit → workflow start once the burst has ended, backlog included.
   */
  after: { paid: number; dispatched: number; delayP50: number; delayP99: number; delayMax: number } | null;
};

const WAIT_LIMIT_MS = 120_000;

/** The payments after a burst go this far apart (10 a second). */
export const BURST_TAIL_GAP_MS = 100;

async function delaysOf(db: Database, invoiceIds: number[], lastAnswerAt: number): Promise<{ delays: number[]; afterLast: number[]; paid: number }> {
  const rows = await db.read<{ delay: number | null; after_last: number | null }>(
    `SELECT extract(epoch FROM dispatched_at - paid_at)::float8 AS delay, extract(epoch FROM dispatched_at - to_timestamp($2::float8 / 1000))::float8 AS after_last
       FROM invoices WHERE id = ANY($1)`,
    [invoiceIds, lastAnswerAt],
  );
  return {
    paid: rows.length,
    delays: rows.flatMap((r) => (r.delay === null ? [] : [r.delay])),
    afterLast: rows.flatMap((r) => (r.after_last === null ? [] : [r.after_last])),
  };
}

/**
 * Waits (at most two minutes) until every invoice of the run is dispatched, then reads the
 * delays from the database: `paid_at` is the settling transaction's time, `dispatched_at` is
 * written once the workflow starts returned. `afterIds` are the invoices paid one by one after the burst.
 */
export async function measureFulfilment(db: Database, invoiceIds: number[], lastAnswerAt: number, afterIds: number[] = []): Promise<FulfilmentTiming> {
  const all = [...invoiceIds, ...afterIds];
  const left = async () => Number((await db.read<{ n: string }>('SELECT count(*) AS n FROM invoices WHERE id = ANY($1) AND dispatched_at IS NULL', [all]))[0]?.n ?? 0);
  while ((await left()) > 0 && Date.now() - lastAnswerAt < WAIT_LIMIT_MS) await new Promise((resolve) => setTimeout(resolve, 100));
  const burst = await delaysOf(db, invoiceIds, lastAnswerAt);
  const tail = afterIds.length > 0 ? await delaysOf(db, afterIds, lastAnswerAt) : null;
  const max = (values: number[]) => (values.length > 0 ? Math.max(...values) : 0);
  return {
    paid: burst.paid,
    dispatched: burst.delays.length,
    delayP50: percentile(burst.delays, 50),
    delayP99: percentile(burst.delays, 99),
    delayMax: max(burst.delays),
    drainSeconds: Math.max(0, ...burst.afterLast),
    after: tail && { paid: tail.paid, dispatched: tail.delays.length, delayP50: percentile(tail.delays, 50), delayP99: percentile(tail.delays, 99), delayMax: max(tail.delays) },
  };
}

/** Targets of issue #35 for our side: p99 under 3 s during the burst, under 1 s once it ended. */
export const FULFILMENT_P99_DURING_S = 3;
export const FULFILMENT_P99_AFTER_S = 1;

export function formatFulfilmentTiming(t: FulfilmentTiming, who = 'fulfilment'): string {
  const burst = `burst p50 ${t.delayP50.toFixed(2)} s, p99 ${t.delayP99.toFixed(2)} s, max ${t.delayMax.toFixed(2)} s; backlog drained ${t.drainSeconds.toFixed(1)} s after the last answer; dispatched ${t.dispatched}/${t.paid}`;
  const after = t.after
    ? `; after the burst (${t.after.paid} payments ${BURST_TAIL_GAP_MS} ms apart) p50 ${t.after.delayP50.toFixed(2)} s, p99 ${t.after.delayP99.toFixed(2)} s, max ${t.after.delayMax.toFixed(2)} s, dispatched ${t.after.dispatched}/${t.after.paid}`
    : '';
  return `履约 / ${who}: commit → workflow start, ${burst}${after}`;
}

/**
 * A relay in its own process on the bench database and Temporal, resolves once it listens: ours
 * (bench/money/relay-child.ts, as a worker process runs it) or the baseline's
 * (bench/money/bare-relay.ts), with the same pool size and parallelism.
 */
export async function startBenchRelay(
  side: 'ours' | 'bare',
  env: { databaseUrl: string; temporalAddress: string; secretKey: string; poolMax: number },
  signal: AbortSignal,
): Promise<Child> {
  const entry = side === 'ours' ? './relay-child.ts' : './bare-relay.ts';
  const ready = side === 'ours' ? '"relay started"' : '"bare relay started"';
  const child = startMutableNodeChild(
    side === 'ours' ? 'relay' : 'bare relay',
    fileURLToPath(new URL(entry, import.meta.url)),
    {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: env.databaseUrl,
      DATABASE_POOL_MAX: String(env.poolMax),
      TEMPORAL_ADDRESS: env.temporalAddress,
      APP_SECRET_KEY: env.secretKey,
      LOG_LEVEL: 'warn',
    },
    () => signal.aborted,
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the bench ${side} relay did not start within 60 s`)), 60_000);
    child.process.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void child.exited.then((code) => reject(new Error(`the bench ${side} relay exited (${code})`)));
  });
  return child;
}

import { fileURLToPath } from 'node:url';
import type { Database } from '../../db/sequelize.js';
import type { Child } from '../../scripts/lib/children.js';
import { startMutableNodeChild } from '../lib/node-child.js';
import { percentile } from '../lib/percentile.js';

/** How long fulfilment follows the payments of one run (issue #30): commit → workflow start, and the backlog after the burst. */
export type FulfilmentTiming = {
  /** Invoices paid by the run, and how many had their fulfilment dispatched (workflows started) by the end of the wait. */
  paid: number;
  dispatched: number;
  /** Seconds from the settlement (`invoices.paid_at`) to the recorded dispatch (`dispatched_at`), over the run's invoices. */
  delayP50: number;
  delayP99: number;
  delayMax: number;
  /** Seconds from the run's last answer until the last of its invoices was dispatched (0 when none was left). */
  drainSeconds: number;
};

const WAIT_LIMIT_MS = 120_000;

/**
 * Waits (at most two minutes) until every invoice of the run is dispatched, then reads the
 * delays from the database: `paid_at` is the settling transaction's time, `dispatched_at` is
 * written once the workflow starts returned.
 */
export async function measureFulfilment(db: Database, invoiceIds: number[], lastAnswerAt: number): Promise<FulfilmentTiming> {
  const left = async () => Number((await db.read<{ n: string }>('SELECT count(*) AS n FROM invoices WHERE id = ANY($1) AND dispatched_at IS NULL', [invoiceIds]))[0]?.n ?? 0);
  while ((await left()) > 0 && Date.now() - lastAnswerAt < WAIT_LIMIT_MS) await new Promise((resolve) => setTimeout(resolve, 100));
  const rows = await db.read<{ delay: number | null; after_last: number | null }>(
    `SELECT extract(epoch FROM dispatched_at - paid_at)::float8 AS delay, extract(epoch FROM dispatched_at - to_timestamp($2::float8 / 1000))::float8 AS after_last
       FROM invoices WHERE id = ANY($1)`,
    [invoiceIds, lastAnswerAt],
  );
  const delays = rows.flatMap((r) => (r.delay === null ? [] : [r.delay]));
  const afterLast = rows.flatMap((r) => (r.after_last === null ? [] : [r.after_last]));
  return {
    paid: rows.length,
    dispatched: delays.length,
    delayP50: percentile(delays, 50),
    delayP99: percentile(delays, 99),
    delayMax: delays.length > 0 ? Math.max(...delays) : 0,
    drainSeconds: Math.max(0, ...afterLast),
  };
}

export function formatFulfilmentTiming(t: FulfilmentTiming): string {
  return `履约 / fulfilment: commit → workflow start p50 ${t.delayP50.toFixed(2)} s, p99 ${t.delayP99.toFixed(2)} s, max ${t.delayMax.toFixed(2)} s; backlog drained ${t.drainSeconds.toFixed(1)} s after the last answer; dispatched ${t.dispatched}/${t.paid}`;
}

/**
 * The outbox relay in its own process (bench/money/relay-child.ts), as a worker process runs it,
 * on the bench database and Temporal; resolves once it listens.
 */
export async function startBenchRelay(env: { databaseUrl: string; temporalAddress: string; secretKey: string; poolMax: number }, signal: AbortSignal): Promise<Child> {
  const child = startMutableNodeChild(
    'relay',
    fileURLToPath(new URL('./relay-child.ts', import.meta.url)),
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
    const timer = setTimeout(() => reject(new Error('the bench relay did not start within 60 s')), 60_000);
    child.process.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('"relay started"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void child.exited.then((code) => reject(new Error(`the bench relay exited (${code})`)));
  });
  return child;
}

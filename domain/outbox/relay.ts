import { listenForNotifications } from '../../lib/pg-listener.js';
import { sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { OUTBOX_CHANNEL, shortError } from './intents.js';
import { type ClaimedIntent, performIntent } from './perform.js';

/** The safety net under LISTEN/NOTIFY: a pass this often even when no notification came (one was missed, a backoff ran out). */
export const RELAY_POLL_MS = 3_000;
/** Rows claimed per statement; a pass repeats while it finds this many. */
const BATCH = 20;
/**
 * A claim is a lease: the row's `next_attempt_at` moves this far ahead, so other relays skip it
 * while this one works; if this process dies mid-call, another takes the row when it runs out.
 * Longer than the slowest perform (a few Temporal calls at BACKGROUND_DEADLINE_MS each).
 */
const LEASE_SECONDS = 60;
/**
 * Backoff after a failure: 2^attempts seconds, at most this, so rows that failed through a long
 * Temporal outage go out within two minutes of its end (a row that keeps failing costs a log line
 * every two minutes, and its reason stays in `last_error`).
 */
const MAX_BACKOFF_SECONDS = 120;

const CLAIM = `
  UPDATE outbox o SET attempts = o.attempts + 1, next_attempt_at = now() + make_interval(secs => $2), updated_at = now()
    FROM (SELECT id FROM outbox WHERE done_at IS NULL AND next_attempt_at <= now() ORDER BY next_attempt_at, id LIMIT $1 FOR UPDATE SKIP LOCKED) due
   WHERE o.id = due.id
  RETURNING o.id, o.kind, o.key, o.payload, o.attempts`;

export type RelaySummary = { claimed: number; done: number; failed: number };

async function settle(deps: DomainDeps, intent: ClaimedIntent, summary: RelaySummary): Promise<void> {
  try {
    const note = await performIntent(deps, intent);
    await sqlRows(deps, 'UPDATE outbox SET done_at = now(), last_error = $2, updated_at = now() WHERE id = $1 AND done_at IS NULL RETURNING id', [intent.id, note]);
    summary.done += 1;
  } catch (err) {
    summary.failed += 1;
    const backoff = Math.min(2 ** intent.attempts, MAX_BACKOFF_SECONDS);
    deps.logger.warn({ err, key: intent.key, attempts: intent.attempts, retryInSeconds: backoff }, 'outbox intent failed; retried later');
    await sqlRows(
      deps,
      'UPDATE outbox SET next_attempt_at = now() + make_interval(secs => $2), last_error = $3, updated_at = now() WHERE id = $1 AND done_at IS NULL RETURNING id',
      [intent.id, backoff, shortError(err)],
    );
  }
}

/**
 * One pass of the relay: claims the due rows (FOR UPDATE SKIP LOCKED, so relays in several
 * worker processes share the work without waiting on each other), performs them at once and
 * marks each done, or failed with a backoff; repeats while batches come back full.
 */
export async function relayDueIntents(deps: DomainDeps): Promise<RelaySummary> {
  const summary: RelaySummary = { claimed: 0, done: 0, failed: 0 };
  for (;;) {
    const claimed = await sqlRows<ClaimedIntent>(deps, CLAIM, [BATCH, LEASE_SECONDS]);
    summary.claimed += claimed.length;
    await Promise.all(claimed.map((intent) => settle(deps, intent, summary)));
    if (claimed.length < BATCH) return summary;
  }
}

export type OutboxRelay = {
  /** True while the LISTEN connection is up (else only the poll finds new rows). */
  isListening(): boolean;
  stop(): Promise<void>;
};

/**
 * The outbox relay of a worker process: woken by `NOTIFY outbox` (the payload is how long the new
 * row waits for its writer's own try), passing every RELAY_POLL_MS anyway, and once at start
 * (rows left by a crash). Passes never overlap within a process; a wake-up during a pass runs
 * another right after it.
 */
export function startOutboxRelay(deps: DomainDeps, options: { pollMs?: number } = {}): OutboxRelay {
  let stopped = false;
  let stopping: Promise<void> | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  let healthy = true;
  let wake: NodeJS.Timeout | null = null;
  let wakeAt = Number.POSITIVE_INFINITY;

  const run = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = relayDueIntents(deps)
      .then(() => {
        if (!healthy) deps.logger.info('outbox relay running again');
        healthy = true;
      })
      .catch((err: unknown) => {
        // Once per outage (the database away): the poll keeps trying.
        if (healthy) deps.logger.warn({ err }, 'outbox relay pass failed; retried at the next poll');
        healthy = false;
      })
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          run();
        }
      });
  };
  const schedule = (delayMs: number): void => {
    const at = Date.now() + delayMs;
    if (stopped || at >= wakeAt) return;
    if (wake) clearTimeout(wake);
    wakeAt = at;
    wake = setTimeout(() => {
      wake = null;
      wakeAt = Number.POSITIVE_INFINITY;
      run();
    }, delayMs);
    wake.unref();
  };
  const listener = listenForNotifications({
    databaseUrl: deps.config.databaseUrl,
    channel: OUTBOX_CHANNEL,
    logger: deps.logger,
    name: 'outbox relay',
    // A little after the row is due; a payload that is not a delay wakes at once.
    onNotification: (payload) => schedule(Math.min(Math.max(Number(payload) || 0, 0), 60_000) + (Number(payload) > 0 ? 50 : 0)),
    onReset: () => schedule(0),
  });
  const poll = setInterval(run, options.pollMs ?? RELAY_POLL_MS);
  poll.unref();
  schedule(0);
  return {
    isListening: () => listener.isListening(),
    // Idempotent: the worker calls it on the signal (to stop claiming at once) and again on its way out.
    stop() {
      stopping ??= (async () => {
        stopped = true;
        clearInterval(poll);
        if (wake) clearTimeout(wake);
        await listener.close();
        await running;
      })();
      return stopping;
    },
  };
}

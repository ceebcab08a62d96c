import { listenForNotifications } from '../../lib/pg-listener.js';
import { sqlRows, statement } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { OUTBOX_CHANNEL, shortError } from './intents.js';
import { type ClaimedIntent, performIntent } from './perform.js';

/** The safety net under LISTEN/NOTIFY: a pass this often even when no notification came (one was missed, a backoff ran out). */
export const RELAY_POLL_MS = 3_000;
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

/** Claims up to $1 due rows, counting the attempt and taking the lease, in one statement. */
const CLAIM = statement(`
  UPDATE outbox o SET attempts = o.attempts + 1, next_attempt_at = now() + make_interval(secs => $2), updated_at = now()
    FROM (SELECT id FROM outbox WHERE done_at IS NULL AND next_attempt_at <= now() ORDER BY next_attempt_at, id LIMIT $1 FOR UPDATE SKIP LOCKED) due
   WHERE o.id = due.id
  RETURNING o.id, o.kind, o.key, o.payload, o.attempts`);

/** Marks performed rows done, each with its note, in one guarded statement (a row already done stays as it was). */
const MARK_DONE = statement(`
  UPDATE outbox o SET done_at = now(), last_error = d.note, updated_at = now()
    FROM unnest($1::bigint[], $2::text[]) AS d(id, note)
   WHERE o.id = d.id AND o.done_at IS NULL`);

const MARK_FAILED = statement(
  'UPDATE outbox SET next_attempt_at = now() + make_interval(secs => $2), last_error = $3, updated_at = now() WHERE id = $1 AND done_at IS NULL RETURNING id',
);

export type RelaySummary = { claimed: number; done: number; failed: number };

/**
 * The done marks of one pass, written together: a mark waits while the previous statement runs and
 * goes with every mark that came meanwhile, so a burst costs one statement per round trip rather
 * than one per row, and a lone row is marked at once. A row performed but not yet marked when the
 * process dies is performed again after its lease (every kind is idempotent).
 */
function doneMarks(deps: DomainDeps): { mark(id: string, note: string | null): Promise<void>; idle(): Promise<void> } {
  let waiting: Array<{ id: string; note: string | null; written: () => void; failed: (err: unknown) => void }> = [];
  let writing: Promise<void> | null = null;
  const write = (): void => {
    const batch = waiting;
    waiting = [];
    writing = sqlRows(deps, MARK_DONE, [batch.map((m) => m.id), batch.map((m) => m.note)])
      .then(
        () => batch.forEach((m) => m.written()),
        (err: unknown) => batch.forEach((m) => m.failed(err)),
      )
      .finally(() => {
        writing = null;
        if (waiting.length > 0) write();
      });
  };
  return {
    mark: (id, note) =>
      new Promise<void>((written, failed) => {
        waiting.push({ id, note, written, failed });
        if (!writing) write();
      }),
    idle: async () => {
      while (writing) await writing;
    },
  };
}

async function settle(deps: DomainDeps, intent: ClaimedIntent, marks: ReturnType<typeof doneMarks>, summary: RelaySummary): Promise<() => Promise<void>> {
  try {
    const note = await performIntent(deps, intent);
    // The place is free once the call returned; the mark follows with the others of its moment.
    return async () => {
      await marks.mark(intent.id, note);
      summary.done += 1;
    };
  } catch (err) {
    summary.failed += 1;
    const backoff = Math.min(2 ** intent.attempts, MAX_BACKOFF_SECONDS);
    deps.logger.warn({ err, key: intent.key, attempts: intent.attempts, retryInSeconds: backoff }, 'outbox intent failed; retried later');
    return async () => {
      await sqlRows(deps, MARK_FAILED, [intent.id, backoff, shortError(err)]);
    };
  }
}

export type RelayPassOptions = {
  /** Rows performed at once (default: the worker's `OUTBOX_RELAY_CONCURRENCY`). */
  concurrency?: number;
  /**
   * Asked when the due rows seemed exhausted while some are still in flight: true when new rows
   * may have come (a NOTIFY during the pass), so the pass claims again instead of ending.
   */
  moreCame?: () => boolean;
  /** True once the relay is stopping: no more claims; what is in flight finishes and is marked. */
  stopped?: () => boolean;
};

/**
 * One pass of the relay: claims due rows in batches (FOR UPDATE SKIP LOCKED, so relays in several
 * worker processes share the work without waiting on each other) and keeps up to `concurrency`
 * of them in flight: a batch is as large as the free places (never more rows leased than this
 * process is performing, so an idle relay elsewhere takes the rest), claimed again once a quarter
 * of the places are free. Each row is marked done (in grouped guarded updates), or failed with a
 * backoff; a failure leaves the other rows of its batch untouched. Ends when no due row is left
 * and nothing is in flight.
 */
export async function relayDueIntents(deps: DomainDeps, options: RelayPassOptions = {}): Promise<RelaySummary> {
  const limit = Math.max(1, options.concurrency ?? deps.config.temporal.outboxRelayConcurrency);
  const refillAt = Math.max(1, Math.floor(limit / 4));
  const summary: RelaySummary = { claimed: 0, done: 0, failed: 0 };
  const marks = doneMarks(deps);
  const pending = new Set<Promise<void>>();
  let inFlight = 0;
  let exhausted = false;
  let freed: (() => void) | null = null;
  let firstError: unknown = null;
  const track = (work: Promise<void>): void => {
    const tracked = work
      .catch((err: unknown) => {
        firstError ??= err;
      })
      .finally(() => pending.delete(tracked));
    pending.add(tracked);
  };
  for (;;) {
    const free = limit - inFlight;
    const mayClaim = firstError === null && !(options.stopped?.() ?? false) && (inFlight === 0 || free >= refillAt) && (!exhausted || (options.moreCame?.() ?? false));
    if (mayClaim) {
      let claimed: ClaimedIntent[];
      try {
        claimed = await sqlRows<ClaimedIntent>(deps, CLAIM, [free, LEASE_SECONDS]);
      } catch (err) {
        // The database away: what is in flight finishes, then the pass fails (retried at the next poll).
        firstError = err;
        continue;
      }
      summary.claimed += claimed.length;
      exhausted = claimed.length < free;
      for (const intent of claimed) {
        inFlight += 1;
        track(
          settle(deps, intent, marks, summary).then((after) => {
            inFlight -= 1;
            freed?.();
            return after();
          }),
        );
      }
      if (!exhausted) continue;
    }
    if (inFlight === 0) break;
    await new Promise<void>((resolve) => (freed = resolve));
    freed = null;
  }
  await Promise.all(pending);
  await marks.idle();
  // A mark that could not be written (the database away): the rows stay leased and come back
  // after the lease; the pass reports the failure as before.
  if (firstError !== null) throw firstError instanceof Error ? firstError : new Error(String(firstError));
  return summary;
}

export type OutboxRelay = {
  /** True while the LISTEN connection is up (else only the poll finds new rows). */
  isListening(): boolean;
  stop(): Promise<void>;
};

/**
 * The outbox relay of a worker process: woken by `NOTIFY outbox` (the payload is how long the new
 * row waits for its writer's own try), passing every RELAY_POLL_MS anyway, and once at start
 * (rows left by a crash). Passes never overlap within a process; a wake-up during a pass makes
 * it claim again before it ends (or runs another right after it).
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
    running = relayDueIntents(deps, {
      moreCame: () => {
        const came = again;
        again = false;
        return came;
      },
      stopped: () => stopped,
    })
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

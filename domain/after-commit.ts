import { outsideAdminAudit } from '../lib/request-context.js';
import type { DomainDeps } from './deps.js';

type Queue = { running: number; waiting: Array<() => Promise<void>> };

/** Follow-up work in flight at once per process, and how much may wait. */
const CONCURRENCY = 16;
const MAX_WAITING = 20_000;

const queues = new WeakMap<DomainDeps['db'], Queue>();

function queueOf(deps: DomainDeps): Queue {
  let queue = queues.get(deps.db);
  if (!queue) {
    queue = { running: 0, waiting: [] };
    queues.set(deps.db, queue);
  }
  return queue;
}

function pump(deps: DomainDeps, queue: Queue): void {
  while (queue.running < CONCURRENCY && queue.waiting.length > 0) {
    const task = queue.waiting.shift() as () => Promise<void>;
    queue.running += 1;
    void task().finally(() => {
      queue.running -= 1;
      pump(deps, queue);
    });
  }
}

/**
 * Best-effort work right after a commit, in this process's memory (a verification code's mail or
 * text, a quick try of an outbox row just written). The answer does not wait for it (a bounded
 * queue runs it at once). Losing it (a failure, a full queue, a process killed) must be harmless:
 * nothing may be queued here that the caller cannot afford to lose. `ifLost` says, in the log
 * line of a failure or a full queue, what makes the loss harmless for this caller (for example
 * "the outbox relay repeats it" when an outbox row holds the promise, "the user asks for a new
 * code" when nothing does).
 */
export function afterCommit(deps: DomainDeps, work: { label: string; ifLost: string }, run: () => Promise<unknown>): void {
  const queue = queueOf(deps);
  const { label, ifLost } = work;
  if (queue.waiting.length >= MAX_WAITING) {
    deps.logger.warn({ label }, `after-commit queue full, work dropped; ${ifLost}`);
    return;
  }
  queue.waiting.push(async () => {
    try {
      // Not a change of the admin call it may run beside (its writes carry no audit row of that call).
      await outsideAdminAudit(run);
    } catch (err) {
      deps.logger.warn({ err, label }, `after-commit work failed; ${ifLost}`);
    }
  });
  pump(deps, queue);
}

/** Resolves once nothing is queued or running (tests, graceful shutdown). */
export async function afterCommitIdle(deps: DomainDeps): Promise<void> {
  const queue = queueOf(deps);
  while (queue.running > 0 || queue.waiting.length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
}

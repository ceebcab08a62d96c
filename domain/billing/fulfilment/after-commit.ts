import type { DomainDeps } from '../../deps.js';

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
 * Best-effort work right after a commit, in this process's memory: a quick try of something
 * that is durable elsewhere (the fulfilment a payment recorded in the outbox, a signal that
 * only makes a payment workflow look sooner than its next poll). The answer does not wait for
 * it (a bounded queue runs it at once). Losing it (a failure, a full queue, a process killed)
 * is harmless by construction: nothing may be queued here unless the outbox relay or the
 * workflow's own polling does the same thing anyway; every such step is idempotent.
 */
export function afterCommit(deps: DomainDeps, label: string, work: () => Promise<unknown>): void {
  const queue = queueOf(deps);
  if (queue.waiting.length >= MAX_WAITING) {
    deps.logger.warn({ label }, 'after-commit queue full; left to the outbox relay');
    return;
  }
  queue.waiting.push(async () => {
    try {
      await work();
    } catch (err) {
      deps.logger.warn({ err, label }, 'after-commit work failed; the outbox relay repeats it');
    }
  });
  pump(deps, queue);
}

/** Resolves once nothing is queued or running (tests, graceful shutdown). */
export async function afterCommitIdle(deps: DomainDeps): Promise<void> {
  const queue = queueOf(deps);
  while (queue.running > 0 || queue.waiting.length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
}

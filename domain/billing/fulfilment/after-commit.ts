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
 * Work that follows a committed money change but is not part of it: starting the
 * provisioning workflow after a payment, waking a payment workflow after a notification. The
 * answer does not wait for it (a bounded in-process queue runs it right away); a failure, or
 * a process that dies first, only delays it: the reconcilers (`redispatchPendingFulfilment`,
 * the payment workflow's own polling) repeat it, and every such step is idempotent.
 */
export function afterCommit(deps: DomainDeps, label: string, work: () => Promise<unknown>): void {
  const queue = queueOf(deps);
  if (queue.waiting.length >= MAX_WAITING) {
    deps.logger.warn({ label }, 'after-commit queue full; left to the reconciler');
    return;
  }
  queue.waiting.push(async () => {
    try {
      await work();
    } catch (err) {
      deps.logger.warn({ err, label }, 'after-commit work failed; the reconciler repeats it');
    }
  });
  pump(deps, queue);
}

/** Resolves once nothing is queued or running (tests, graceful shutdown). */
export async function afterCommitIdle(deps: DomainDeps): Promise<void> {
  const queue = queueOf(deps);
  while (queue.running > 0 || queue.waiting.length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
}

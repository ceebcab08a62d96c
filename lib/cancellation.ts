import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The cancellation of the work being done, reachable from any code it calls without threading a
 * signal through every signature (docs/production.md "Stopping (SIGTERM)"). A Temporal activity
 * runs inside one (`activities/observe-cancellation.ts`): its signal aborts when the worker's
 * shutdown grace ends or the workflow cancels the activity. Code that waits on something outside
 * the process (a plugin's call to a supplier, a pause between batches) stops waiting when it
 * aborts; short database steps do not look. Outside such work (the API, scripts) there is none.
 */
const storage = new AsyncLocalStorage<AbortSignal>();

/** Thrown where work stops because it was cancelled; the activity wrapper reports it to Temporal. */
export class WorkCancelledError extends Error {
  constructor(reason: unknown) {
    super(`work cancelled: ${reason instanceof Error ? reason.message : String(reason ?? 'no reason')}`);
    this.name = 'WorkCancelledError';
  }
}

export function runCancellable<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  return storage.run(signal, work);
}

/** The current work's signal, or undefined outside cancellable work. */
export function currentCancellation(): AbortSignal | undefined {
  return storage.getStore();
}

/** Throws `WorkCancelledError` when the current work has been cancelled (a check between batches). */
export function throwIfCancelled(): void {
  const signal = storage.getStore();
  if (signal?.aborted) throw new WorkCancelledError(signal.reason);
}

/**
 * Resolves as `work` does, or rejects with `WorkCancelledError` as soon as the current work is
 * cancelled, leaving `work` to settle by itself (it should be given the same signal, so it
 * stops too). Outside cancellable work it is `work` itself.
 */
export function unlessCancelled<T>(work: Promise<T>): Promise<T> {
  const signal = storage.getStore();
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(new WorkCancelledError(signal.reason));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => undefined);
      reject(new WorkCancelledError(signal.reason));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err as Error);
      },
    );
  });
}

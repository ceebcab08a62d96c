import type { Child } from '../../scripts/lib/children.js';

/** Resolves when a worker process logs that it polls its queues (a `"worker started"` JSON line). */
export function workerStarted(worker: Child, signal: AbortSignal, timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${worker.name} did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    worker.process.stdout?.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-10_000);
      if (seen.includes('"worker started"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void worker.exited.then((code) => reject(new Error(`${worker.name} exited (${code})`)));
    signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
  });
}

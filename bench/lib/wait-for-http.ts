import type { Child } from '../../scripts/lib/children.js';

/** Polls `url` until it answers 200; fails early when the child exits or the signal aborts. */
export async function waitForHttp(url: string, child: Child, options: { timeoutMs: number; signal: AbortSignal }): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    options.signal.throwIfAborted();
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      throw new Error(`${child.name} exited (${child.process.exitCode ?? child.process.signalCode}) before ${url} answered`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} not ready after ${options.timeoutMs} ms (${last})`);
}

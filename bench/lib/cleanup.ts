/**
 * Teardown steps run in reverse order of registration, once: the finally block and a signal
 * handler may both ask for it, and both get the same promise. Each step gets a deadline, so a
 * step that never settles (e.g. stopping an embedded PostgreSQL that already exited) cannot
 * keep the bench from finishing.
 */
export type Cleanup = {
  add(name: string, step: () => Promise<void>): void;
  run(): Promise<void>;
};

export function createCleanup(log: (m: string) => void, stepTimeoutMs = 15_000): Cleanup {
  const steps: Array<{ name: string; step: () => Promise<void> }> = [];
  let running: Promise<void> | null = null;
  const withDeadline = async (name: string, step: () => Promise<void>) => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no result after ${stepTimeoutMs} ms`)), stepTimeoutMs);
    });
    try {
      await Promise.race([step(), deadline]);
    } catch (err) {
      log(`cleanup ${name} failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    add(name, step) {
      if (running) throw new Error(`cleanup already running; cannot add ${name}`);
      steps.push({ name, step });
    },
    run() {
      running ??= (async () => {
        for (const { name, step } of steps.reverse()) await withDeadline(name, step);
      })();
      return running;
    },
  };
}

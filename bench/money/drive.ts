/** One request of a counted load: where, what, and how to judge the answer. */
export type CountedRequest = { url: string; init: RequestInit; check(status: number, body: string): string | null };

export type CountedResult = {
  name: string;
  requests: number;
  concurrency: number;
  seconds: number;
  perSecond: number;
  latencyMs: { p50: number; p99: number };
  failures: number;
  firstFailures: string[];
};

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/**
 * Sends `requests` (each used exactly once: every balance payment consumes its own invoice,
 * every notification its own payment) with `concurrency` requests in flight, over keep-alive
 * connections from this process; answers operations per second of the whole run.
 */
export async function driveCounted(name: string, requests: CountedRequest[], concurrency: number, signal: AbortSignal): Promise<CountedResult> {
  const latencies: number[] = [];
  const failures: string[] = [];
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    for (;;) {
      signal.throwIfAborted();
      const index = next++;
      const request = requests[index];
      if (!request) return;
      const t0 = performance.now();
      try {
        const res = await fetch(request.url, request.init);
        const body = await res.text();
        latencies.push(performance.now() - t0);
        const problem = request.check(res.status, body);
        if (problem) failures.push(`#${index}: ${problem}`);
      } catch (err) {
        failures.push(`#${index}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    name,
    requests: requests.length,
    concurrency,
    seconds,
    perSecond: requests.length / seconds,
    latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
    failures: failures.length,
    firstFailures: failures.slice(0, 3),
  };
}

/**
 * Sends `requests` one at a time, each `gapMs` after the previous one started (or right after it
 * answered, when it took longer): a trickle, to see what follows a commit once a burst is over.
 */
export async function driveSpaced(name: string, requests: CountedRequest[], gapMs: number, signal: AbortSignal): Promise<CountedResult> {
  const started = performance.now();
  const results: CountedResult[] = [];
  for (const request of requests) {
    const t0 = performance.now();
    results.push(await driveCounted(name, [request], 1, signal));
    const wait = gapMs - (performance.now() - t0);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  const latencies = results.map((r) => r.latencyMs.p50).sort((a, b) => a - b);
  const seconds = (performance.now() - started) / 1000;
  return {
    name,
    requests: requests.length,
    concurrency: 1,
    seconds,
    perSecond: requests.length / seconds,
    latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
    failures: results.reduce((n, r) => n + r.failures, 0),
    firstFailures: results.flatMap((r) => r.firstFailures).slice(0, 3),
  };
}

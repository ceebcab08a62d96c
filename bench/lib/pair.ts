import { failures, measure, type Measurement } from './measure.js';
import { type PeakRss, watchPeakRss } from './rss.js';
import { type Target, verifyTarget } from './target.js';

/** Our endpoint against the bare baseline doing the same database work. */
export type PairSpec = {
  name: string;
  ours: Target;
  bare: Target;
  /** Connections for this pair (default: the run's setting). */
  connections?: number;
  /** Optional target: ours must reach at least `minRatio` (0..1) of bare's requests/s, and a p99 under `maxP99Ms`. */
  goal?: Goal;
};

export type Goal = { label: string; minRatio: number; maxP99Ms?: number };

export type PairResult = {
  name: string;
  ours: Measurement;
  bare: Measurement;
  /** ours / bare requests per second. */
  ratio: number;
  goal: (Goal & { pass: boolean }) | null;
  /** Failed measured requests on either side; a pair with failures has no valid figures. */
  failures: number;
  /** Peak resident set sizes during the pair (both sides): the API's with its target, the baseline's beside it. */
  rss: PeakRss;
};

export type LoadSettings = { durationSeconds: number; warmupSeconds: number; connections: number };

/**
 * Verifies both targets answer correctly, then loads ours and bare one after the other, sampling
 * the resident set size of `processes` (pids by name: `api`, `bare server`) all the while.
 */
export async function runPair(
  spec: PairSpec,
  load: LoadSettings & { signal: AbortSignal; log: (m: string) => void; processes?: Record<string, number | undefined> },
): Promise<PairResult> {
  await verifyTarget(spec.ours);
  await verifyTarget(spec.bare);
  const rss = watchPeakRss(load.processes ?? {});
  const results: Measurement[] = [];
  for (const target of [spec.ours, spec.bare]) {
    load.log(`${target.name}: ${load.warmupSeconds}s warm-up + ${load.durationSeconds}s at ${spec.connections ?? load.connections} connections → ${target.url}${target.requests ? ` (${target.requests.length} requests rotated)` : ''}`);
    const m = await measure(target.url, {
      name: target.name,
      headers: target.headers ?? {},
      ...(target.method ? { method: target.method } : {}),
      ...(target.body === undefined ? {} : { body: target.body }),
      ...(target.requests ? { requests: target.requests } : {}),
      ...load,
      connections: spec.connections ?? load.connections,
    });
    if (m.warmup.non2xx + m.warmup.errors > 0) {
      load.log(`  warning: warm-up had ${m.warmup.non2xx} non-2xx and ${m.warmup.errors} errors`);
    }
    results.push(m);
  }
  const peakRss = rss.stop();
  const [ours, bare] = results as [Measurement, Measurement];
  const ratio = bare.requestsPerSecond > 0 ? ours.requestsPerSecond / bare.requestsPerSecond : 0;
  const failed = failures(ours) + failures(bare);
  return {
    name: spec.name,
    ours,
    bare,
    ratio,
    // Figures from a run with failed requests are not comparable: such a goal never passes.
    goal: spec.goal
      ? { ...spec.goal, pass: failed === 0 && ratio >= spec.goal.minRatio && (spec.goal.maxP99Ms === undefined || ours.latencyMs.p99 < spec.goal.maxP99Ms) }
      : null,
    failures: failed,
    rss: peakRss,
  };
}

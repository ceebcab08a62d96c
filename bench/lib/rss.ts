import { existsSync, readFileSync } from 'node:fs';

/** Peak resident set size targets (issue #30, measured on the build: `node dist/…`): the API process and a worker process. */
export const RSS_TARGETS_MB = { api: 250, worker: 400 } as const;

/** Whether resident set sizes can be read here (/proc: Linux). */
export const RSS_SUPPORTED = existsSync('/proc/self/status');
export const RSS_UNSUPPORTED_LINE = 'peak RSS: n/a (no /proc on this platform)';

/** The resident set size of `pid` in MB (VmRSS of /proc/<pid>/status), null when it cannot be read. */
export function readRssMb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    // the process exited, or no /proc
    return null;
  }
}

/**
 * Samples one process's resident set size every `intervalMs` between start() and stop();
 * stop() answers the peak in MB (null: nothing could be read, e.g. no /proc, or no pid).
 */
export class RssSampler {
  private timer: NodeJS.Timeout | null = null;
  private peak: number | null = null;

  constructor(
    private readonly pid: number | undefined,
    private readonly intervalMs = 100,
  ) {}

  private sample(): void {
    if (this.pid === undefined || !RSS_SUPPORTED) return;
    const mb = readRssMb(this.pid);
    if (mb !== null && (this.peak === null || mb > this.peak)) this.peak = mb;
  }

  start(): this {
    this.peak = null;
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    // The sampler never keeps the bench alive.
    this.timer.unref();
    return this;
  }

  stop(): number | null {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sample();
    return this.peak === null ? null : Math.round(this.peak);
  }
}

/** Peak resident set sizes of the processes of one pair, with the targets of ours. */
export type PeakRss = {
  /** Per process (`api`, `worker`, and baselines such as `bare server`): peak MB, null where it could not be read. */
  peakMb: Record<string, number | null>;
  /** The processes with a target (`api`, `worker`): the limit and whether the peak stayed under it (null: not measured). */
  targets: Record<string, { underMb: number; pass: boolean | null }>;
};

/**
 * Watches several processes at once: start it when a pair starts, stop it when it ends. Keys
 * `api` and `worker` are ours and get their targets; any other key is a baseline, reported beside.
 */
export function watchPeakRss(processes: Record<string, number | undefined>): { stop(): PeakRss } {
  const samplers = Object.entries(processes).map(([name, pid]) => [name, new RssSampler(pid).start()] as const);
  return {
    stop() {
      const peakMb = Object.fromEntries(samplers.map(([name, sampler]) => [name, sampler.stop()]));
      const targets: PeakRss['targets'] = {};
      for (const [name, underMb] of Object.entries(RSS_TARGETS_MB)) {
        if (!(name in peakMb)) continue;
        const peak = peakMb[name] ?? null;
        targets[name] = { underMb, pass: peak === null ? null : peak < underMb };
      }
      return { peakMb, targets };
    },
  };
}

/** Two watches of one pair (e.g. ours, then its baseline) as one. */
export function mergePeakRss(a: PeakRss, b: PeakRss): PeakRss {
  return { peakMb: { ...a.peakMb, ...b.peakMb }, targets: { ...a.targets, ...b.targets } };
}

/** "peak RSS: api 182 MB (< 250 MB: PASS), worker 240 MB (< 400 MB: PASS); bare server 61 MB", or n/a without /proc. */
export function formatPeakRss(rss: PeakRss): string {
  if (!RSS_SUPPORTED) return RSS_UNSUPPORTED_LINE;
  const mb = (v: number | null) => (v === null ? 'n/a' : `${v} MB`);
  const ours = Object.entries(rss.targets).map(([name, t]) => `${name} ${mb(rss.peakMb[name] ?? null)} (< ${t.underMb} MB: ${t.pass === null ? 'n/a' : t.pass ? 'PASS' : 'MISS'})`);
  const baselines = Object.entries(rss.peakMb)
    .filter(([name]) => !(name in rss.targets))
    .map(([name, v]) => `${name} ${mb(v)}`);
  return `peak RSS: ${ours.join(', ')}${baselines.length ? `; ${baselines.join(', ')}` : ''}`;
}

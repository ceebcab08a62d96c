import type { PairResult } from './pair.js';
import { formatPeakRss, RSS_SUPPORTED, RSS_UNSUPPORTED_LINE } from './rss.js';

const HEADERS = ['name', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'ours/bare'] as const;
const RIGHT_ALIGNED = new Set<string>(['conns', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'ours/bare']);

function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}

/** The results as an aligned text table, one line per target, plus one line per goal. */
export function formatTable(pairs: PairResult[]): string {
  const rows: string[][] = [];
  for (const pair of pairs) {
    for (const [m, ratio] of [
      [pair.ours, percent(pair.ratio)],
      [pair.bare, ''],
    ] as const) {
      rows.push([
        m.name,
        String(m.connections),
        m.requestsPerSecond.toFixed(0),
        m.latencyMs.p50.toFixed(1),
        m.latencyMs.p99.toFixed(1),
        String(m.non2xx),
        String(m.errors),
        ratio,
      ]);
    }
  }
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (RIGHT_ALIGNED.has(HEADERS[i] ?? '') ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ');
  const out = [line(HEADERS), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
  const goals = pairs.flatMap((p) =>
    p.goal
      ? [
          `目标 / target: ${p.goal.label} — ${percent(p.ratio)}${p.goal.maxP99Ms === undefined ? '' : `, p99 ${p.ours.latencyMs.p99.toFixed(1)} ms`} → ${p.goal.pass ? 'PASS' : 'MISS'}${p.failures ? ' (run had failed requests)' : ''}`,
        ]
      : [],
  );
  if (goals.length) out.push('', ...goals);
  // Without /proc one line says so, rather than one per pair.
  if (pairs.length) out.push('', ...(RSS_SUPPORTED ? pairs.map((p) => `${p.name}: ${formatPeakRss(p.rss)}`) : [RSS_UNSUPPORTED_LINE]));
  return out.join('\n');
}

/** Every block of results printed this run, in order: the run's record (bench/lib/run-record.ts). */
export const printedBlocks: string[] = [];

/** Prints a table (or any block of result lines) and keeps it for the run's record. */
export function printBlock(text: string): void {
  printedBlocks.push(text);
  console.log(`\n${text}\n`);
}

export function printTable(pairs: PairResult[]): void {
  printBlock(formatTable(pairs));
}

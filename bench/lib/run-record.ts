import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchSettings } from './settings.js';

export type RunRecord = {
  startedAt: Date;
  finishedAt: Date;
  /** BENCH_ONLY of the run, when it ran a subset. */
  only: string | undefined;
  machine: string;
  settings: BenchSettings;
  /** Failed requests and failed checks (integrity, exactly once, all active, no duplicate purchase). */
  failed: number;
  /** The tables the run printed, in order. */
  blocks: string[];
};

/** One run as a section of its day's result file: when, on what, with which settings, and its tables. */
export function formatRunSection(run: RunRecord): string {
  const minutes = ((run.finishedAt.getTime() - run.startedAt.getTime()) / 60_000).toFixed(1);
  const settings = Object.entries(run.settings)
    .map(([key, value]) => `${key} ${String(value)}`)
    .join(', ');
  return [
    `## Run at ${run.startedAt.toISOString().slice(11, 16)} UTC${run.only ? ` (BENCH_ONLY=${run.only})` : ''}`,
    '',
    `${run.machine}; ${minutes} min. Settings: ${settings}.`,
    run.failed === 0 ? 'Every request succeeded and every check was clean.' : `**${run.failed} failed requests or checks: the figures are not valid.**`,
    '',
    ...run.blocks.flatMap((block) => ['```text', block, '```', '']),
  ].join('\n');
}

/**
 * Appends the run to `<dir>/<YYYY-MM-DD>.md` (the UTC day it started), creating the file with its
 * title; answers the file's path.
 */
export function appendRunRecord(dir: string, run: RunRecord): string {
  const day = run.startedAt.toISOString().slice(0, 10);
  const path = join(dir, `${day}.md`);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(path)) {
    writeFileSync(path, `# Benchmark runs of ${day}\n\nWritten by \`npm run bench\`; what each pair measures is in docs/benchmarks.md.\n`);
  }
  appendFileSync(path, `\n${formatRunSection(run)}`);
  return path;
}

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appendRunRecord } from '../../bench/lib/run-record.js';
import { readBenchSettings } from '../../bench/lib/settings.js';

const dir = mkdtempSync(join(tmpdir(), 'bench-results-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bench run record (bench/results/<date>.md)', () => {
  it('creates the day\'s file with its title, then appends one section per run', () => {
    const run = {
      startedAt: new Date('2026-11-26T09:15:00Z'),
      finishedAt: new Date('2026-11-26T09:27:00Z'),
      only: undefined,
      machine: 'node v20, 2 × test CPU',
      settings: readBenchSettings({}),
      failed: 0,
      blocks: ['name  req/s\n----  -----\napi   100'],
    };
    const path = appendRunRecord(dir, run);
    expect(path).toBe(join(dir, '2026-11-26.md'));
    appendRunRecord(dir, { ...run, startedAt: new Date('2026-11-26T13:40:00Z'), only: 'money', failed: 3 });
    const text = readFileSync(path, 'utf8');
    expect(text.match(/^# Benchmark runs of 2026-11-26$/gm)).toHaveLength(1);
    expect(text).toContain('## Run at 09:15 UTC\n');
    expect(text).toContain('## Run at 13:40 UTC (BENCH_ONLY=money)\n');
    expect(text).toContain('12.0 min. Settings: durationSeconds 10,');
    expect(text).toContain('**3 failed requests or checks: the figures are not valid.**');
    expect(text).toContain('```text\nname  req/s\n----  -----\napi   100\n```');
  });
});

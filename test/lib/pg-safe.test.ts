import { describe, expect, it } from 'vitest';
import { createBatchWriter } from '../../lib/batch-writer.js';
import { pgSafe, pgSafeText } from '../../lib/pg-safe.js';

describe('pgSafe', () => {
  it('writes NUL and lone surrogates out as escape text, keeps pairs and everything else', () => {
    expect(pgSafeText('a\u0000b')).toBe('a\\u0000b');
    expect(pgSafeText('x\ud800')).toBe('x\\ud800');
    expect(pgSafeText('\udfffy')).toBe('\\udfffy');
    expect(pgSafeText('😀 中文')).toBe('😀 中文');
    expect(pgSafeText('\ud83d\ude00\ud800')).toBe('😀\\ud800');
  });

  it('reaches every string of a JSON value, keys included', () => {
    const value = pgSafe({ 'k\u0000': ['\ud800', { deep: 'a\u0000' }], n: 1, b: true, z: null });
    expect(value).toEqual({ 'k\\u0000': ['\\ud800', { deep: 'a\\u0000' }], n: 1, b: true, z: null });
  });
});

describe('a batch writer', () => {
  it('writes the rows of a refused batch one by one, dropping only the refused one', async () => {
    const written: number[] = [];
    const errors: number[] = [];
    const writer = createBatchWriter<number>({
      write: async (rows) => {
        if (rows.includes(13)) throw new Error('refused');
        written.push(...rows);
      },
      onError: (_err, rows) => errors.push(rows),
      intervalMs: 60_000,
    });
    for (const row of [1, 13, 2, 3]) writer.push(row);
    await writer.flush();
    expect(written).toEqual([1, 2, 3]);
    expect(errors).toEqual([1]);
    expect(writer.dropped()).toBe(1);
  });
});

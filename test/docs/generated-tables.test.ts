import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../lib/errors.js';
import { envSchema } from '../../lib/config.js';
import { generatedPages, renderConfigTable, renderErrorTable } from '../../scripts/lib/docs-tables.js';

describe('generated tables of docs/ (npm run docs:generate)', () => {
  it.each(generatedPages().map((p) => [p.page, p] as const))('%s is what the script writes (run `npm run docs:generate`)', (_page, { current, expected }) => {
    expect(current).toBe(expected);
  });

  it('lists every error code once', () => {
    const table = renderErrorTable();
    for (const [name, code] of Object.entries(ErrorCode)) expect(table).toMatch(new RegExp(`^\\| ${code} \\| \\d{3} \\| \`${name}\` \\|`, 'm'));
    expect(table.split('\n')).toHaveLength(Object.keys(ErrorCode).length + 2);
  });

  it('lists every environment variable the schema reads, with a default or "unset"', () => {
    const table = renderConfigTable();
    for (const name of Object.keys(envSchema.shape)) expect(table).toMatch(new RegExp(`^\\| \`${name}\` \\| [^|]+ \\| .+ \\|$`, 'm'));
    expect(table).toContain('| `PORT` | `8080` |');
    expect(table).toContain('| `RENEWAL_REMINDER_DAYS` | `7,3,1` |');
    expect(table).toContain('| `CORS_ORIGINS` | empty |');
    expect(table).toContain('| `METRICS_PORT` | unset |');
  });
});

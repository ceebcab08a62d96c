import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { temporalServerCacheDir } from '../../scripts/lib/temporal-cluster.js';
import { SEARCH_ATTRIBUTE_TYPES } from '../../workflows/search-attributes.js';

/**
 * SQL visibility (PostgreSQL here, Temporal ≥ 1.20) keeps custom search attributes in fixed
 * pre-made columns of `executions_visibility`: Int01–Int03, Keyword01–Keyword10 (and three
 * each of Bool, Datetime, Double, Text, KeywordList). A namespace cannot hold more of a type;
 * registering one more fails on the cluster, never on the dev server (SQLite, no such limit).
 */
const SQL_VISIBILITY_LIMITS: Record<string, number> = { Int: 3, Keyword: 10 };

function countsByType(types: Record<string, string>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const type of Object.values(types)) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

function overLimits(types: Record<string, string>): string[] {
  return Object.entries(countsByType(types))
    .filter(([type, count]) => count > (SQL_VISIBILITY_LIMITS[type] ?? 0))
    .map(([type, count]) => `${type}: ${count} > ${SQL_VISIBILITY_LIMITS[type] ?? 0}`);
}

describe('the declared search attributes', () => {
  it('fit PostgreSQL visibility: at most 3 Int and 10 Keyword custom attributes per namespace', () => {
    expect(overLimits(SEARCH_ATTRIBUTE_TYPES)).toEqual([]);
  });

  it('a fourth Int attribute would be refused by the check', () => {
    expect(overLimits({ A: 'Int', B: 'Int', C: 'Int', D: 'Int' })).toEqual(['Int: 4 > 3']);
  });

  it('the limits are the columns of the visibility schema of the pinned server (when it is built)', (ctx) => {
    const schema = join(temporalServerCacheDir(), 'schema', 'postgresql', 'v12', 'visibility', 'schema.sql');
    if (!existsSync(schema)) {
      ctx.skip(); // The Temporal server is built on the first `npm run cluster` or cluster test.
      return;
    }
    const text = readFileSync(schema, 'utf8');
    for (const [type, limit] of Object.entries(SQL_VISIBILITY_LIMITS)) {
      const columns = new Set(text.match(new RegExp(`\\b${type}\\d\\d\\b`, 'g')));
      expect(columns.size, type).toBe(limit);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { namedStatement, type Param, statement } from '../../db/sql.js';

/** A fragment of "another file": it knows only its own names. */
function fragment(p: Param<'limit' | 'kinds'>): string {
  return `kind = ANY(${p('kinds')}::text[]) LIMIT ${p('limit')}`;
}

describe('namedStatement', () => {
  const s = namedStatement<'id' | 'limit' | 'kinds'>((p) => `SELECT * FROM t WHERE id = ${p('id')} AND ${fragment(p)} OR id > ${p('id')}`);

  it('numbers each name at its first use, the same name with the same number', () => {
    expect(s.text).toBe('SELECT * FROM t WHERE id = $1 AND kind = ANY($2::text[]) LIMIT $3 OR id > $1');
  });

  it('answers the values in the order of their numbers', () => {
    expect(s.values({ limit: 10, kinds: ['a', 'b'], id: 7 })).toEqual([7, ['a', 'b'], 10]);
  });

  it('is a prepared statement of its fixed text', () => {
    expect(s.name).toBe(statement(s.text).name);
  });
});

import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

/** The `no-restricted-syntax` messages lint gives `line` inside a domain function at `filePath`. */
async function restrictedMessages(filePath: string, line: string): Promise<string[]> {
  const code = `import type { DomainDeps } from '../deps.js';\nexport async function example(deps: DomainDeps): Promise<unknown> {\n  ${line}\n}\n`;
  const [result] = await eslint.lintText(code, { filePath });
  const messages = result?.messages ?? [];
  // A parse or config error would hide the rule: fail loudly instead of passing quietly.
  expect(messages.filter((m) => m.fatal)).toEqual([]);
  return messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

describe('domain/ reaches the database two ways (lint, docs/CONVENTIONS.md "Data")', () => {
  it.each([
    ["return deps.db.sequelize.query('SELECT 1', { type: 'SELECT' });", 'sequelize.query'],
    ["const { sequelize } = deps.db;\n  return sequelize.query('SELECT 1');", 'sequelize.query'],
    ["const { query } = deps.db.sequelize;\n  return query;", 'sequelize.query'],
    ["return deps.db.read('SELECT 1', []);", 'db.read'],
    ['const { read } = deps.db;\n  return read;', 'db.read'],
  ])('refuses %s', async (line, named) => {
    const messages = await restrictedMessages('domain/users/example.ts', line);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(named);
    expect(messages[0]).toContain('db/sql.ts');
  });

  it.each([
    "return sqlRows(deps, 'SELECT 1', []);",
    "return sqlOne(deps, 'SELECT 1 WHERE $1', [true], transaction);",
    'return deps.db.models.User.findByPk(1);',
    'return deps.db.sequelize.transaction(async (transaction) => deps.db.models.User.findByPk(1, { transaction }));',
  ])('allows %s', async (line) => {
    expect(await restrictedMessages('domain/users/example.ts', line)).toEqual([]);
  });

  it('keeps the rule to domain/ (scripts and tests may use any way)', async () => {
    expect(await restrictedMessages('scripts/example.ts', "return deps.db.read('SELECT 1', []);")).toEqual([]);
    expect(await restrictedMessages('test/example.ts', "return deps.db.sequelize.query('SELECT 1');")).toEqual([]);
  });

  it('still refuses default exports in domain/', async () => {
    const [result] = await eslint.lintText('const x = 1;\nexport default x;\n', { filePath: 'domain/users/example.ts' });
    expect(result?.messages.map((m) => m.ruleId)).toEqual(['no-restricted-syntax']);
  });
});

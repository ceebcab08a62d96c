import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

async function lintWorkflow(code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: 'workflows/example/workflow.ts' });
  return (result?.messages ?? []).filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
}

describe('workflow code stays deterministic (lint)', () => {
  it.each([
    ["import { readFileSync } from 'node:fs';", 'Node'],
    ["import { randomUUID } from 'crypto';", 'Node'],
    ["import { createDatabase } from '../../db/sequelize.js';", 'I/O'],
    ["import { listUsers } from '../../domain/users/users.js';", 'I/O'],
    ["import { Sequelize } from 'sequelize';", 'I/O'],
    ["import { createActivities } from '../../activities/index.js';", 'import type'],
  ])('refuses %s', async (line, reason) => {
    const messages = await lintWorkflow(`${line}\nexport const x = 1;\n`);
    expect(messages.length).toBe(1);
    expect(messages[0]).toContain(reason);
  });

  it('allows type imports of activities and the Temporal workflow API', async () => {
    const code = [
      "import { proxyActivities } from '@temporalio/workflow';",
      "import type { Activities } from '../../activities/index.js';",
      'export const a = proxyActivities<Activities>({ startToCloseTimeout: 1000 });',
    ].join('\n');
    expect(await lintWorkflow(code)).toEqual([]);
  });
});

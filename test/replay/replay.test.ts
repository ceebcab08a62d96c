import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import * as workflows from '../../workflows/index.js';
import { HISTORIES_DIR } from '../helpers/histories.js';

const files = readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json'));

describe('replay of recorded histories', () => {
  it('has at least one recorded history for every workflow', () => {
    const recorded = new Set(files.map((f) => f.split('--')[0]));
    for (const name of Object.keys(workflows)) expect(recorded, `history for ${name}`).toContain(name);
  });

  it.each(files)('replays %s without nondeterminism', async (file) => {
    const history = JSON.parse(readFileSync(`${HISTORIES_DIR}${file}`, 'utf8')) as unknown;
    await expect(
      Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, file),
    ).resolves.toBeUndefined();
  });
});

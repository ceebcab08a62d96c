import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';

export const HISTORIES_DIR = fileURLToPath(new URL('../replay/histories/', import.meta.url));

/**
 * With RECORD_HISTORIES=1, saves a finished workflow's history for the replay test, as
 * `<workflowType>--<name>.json`. Histories are committed; CI replays them on every run.
 */
export async function recordHistory(handle: WorkflowHandle, workflowType: string, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  mkdirSync(HISTORIES_DIR, { recursive: true });
  const history = await handle.fetchHistory();
  writeFileSync(`${HISTORIES_DIR}${workflowType}--${name}.json`, historyToJSON(history));
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOURLY_WORKFLOW_TYPE } from '../../../workflows/hourly/contract.js';
import { hooksOf, startCadencePlatform } from '../../helpers/cadence.js';
import { recordHistory } from '../../helpers/histories.js';

let cadence: Awaited<ReturnType<typeof startCadencePlatform>>;

beforeAll(async () => {
  cadence = await startCadencePlatform();
});
afterAll(() => cadence?.close());

describe('the hourly run', () => {
  it('fires tick.hourly for the hour of its slot and records the run', async () => {
    const { handle, result } = await cadence.runCadence(HOURLY_WORKFLOW_TYPE, '2026-01-05T02:20:00.000Z');
    expect(result.slotAt).toBe('2026-01-05T02:00:00.000Z');
    expect(hooksOf(cadence.probes.lines(), (l) => l.context.cadence === 'hourly')).toEqual(['tick.hourly:callable']);
    const run = await cadence.platform.deps.db.models.TaskRun.findByPk(result.taskRunId);
    expect(run).toMatchObject({ task_key: 'hourly', status: 'succeeded', trigger: 'manual' });
    await recordHistory(handle, HOURLY_WORKFLOW_TYPE, 'tick');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEARTBEAT_WORKFLOW_TYPE, heartbeatManualWorkflowId, type HeartbeatResult } from '../../workflows/heartbeat/contract.js';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js';
import { startWorkerProcess } from '../helpers/worker-process.js';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  for await (const s of platform.temporal.schedule.list()) {
    if (s.scheduleId.startsWith(platform.deps.config.temporal.schedulePrefix)) await platform.temporal.schedule.getHandle(s.scheduleId).delete();
  }
  await platform?.close();
});

describe('the worker process', () => {
  it('is killed the hard way and the next process picks the queued work up', async () => {
    const first = startWorkerProcess(platform);
    await first.ready;
    await first.kill();
    const handle = await platform.temporal.workflow.start(HEARTBEAT_WORKFLOW_TYPE, {
      workflowId: heartbeatManualWorkflowId(new Date()),
      taskQueue: platform.deps.config.temporal.automationQueue,
      args: [{ trigger: 'manual' }],
    });
    const second = startWorkerProcess(platform);
    await second.ready;
    const result: HeartbeatResult = await handle.result();
    expect(result.taskRunId).toBeGreaterThan(0);
    await second.stop();
    const run = await platform.deps.db.models.TaskRun.findByPk(result.taskRunId);
    expect(run?.status).toBe('succeeded');
  });
});

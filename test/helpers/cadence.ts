import { startTestPlatform } from './platform.js';
import { createProbePlugins, type ProbeLine } from './schedule-fixtures.js';
import { eventually } from './wait.js';

export type CadenceResult = { taskRunId: number; slotAt: string; summary: Record<string, number> };

/**
 * The platform with workers and the probe plugins (their hooks and tasks, `schedule-fixtures.ts`)
 * that the cadence tests (heartbeat, hourly, daily: one body, workflows/cadence/run-cadence.ts) drive.
 */
export async function startCadencePlatform() {
  const probes = createProbePlugins();
  const platform = await startTestPlatform({ worker: true, env: { PLUGINS_DIR: probes.root, SCHEDULE_HOOK_TIMEOUT_MS: '1000' } });
  await probes.install(platform.deps);
  let started = 0;

  /** Runs a cadence workflow for a given slot (no waiting on clocks) and answers its result. */
  async function runCadence(type: string, slotAt: string) {
    const handle = await platform.temporal.workflow.start(type, {
      workflowId: `test-${type}:${platform.id}:${++started}`,
      taskQueue: platform.deps.config.temporal.automationQueue,
      args: [{ trigger: 'manual', slotAt }],
    });
    return { handle, result: (await handle.result()) as CadenceResult };
  }

  /** The run of a task for a slot once it is no longer running. */
  async function finishedRun(taskKey: string, slotAt: string) {
    return eventually(async () => {
      const row = await platform.deps.db.models.TaskRun.findOne({ where: { task_key: taskKey, slot_at: new Date(slotAt) } });
      return row && row.status !== 'running' ? row : null;
    });
  }

  return {
    platform,
    probes,
    runCadence,
    finishedRun,
    async close() {
      await platform.close();
      probes.cleanup();
    },
  };
}

/** The hooks of the probe lines that pass `filter`, as `hook:listener`. */
export function hooksOf(lines: ProbeLine[], filter: (l: ProbeLine) => boolean): string[] {
  return lines.filter(filter).map((l) => `${l.hook}:${l.listener}`);
}

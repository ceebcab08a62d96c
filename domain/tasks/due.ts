import { cronMatches, parseCron } from '../../lib/cron.js';
import { TIME_ZONE } from '../../lib/time.js';
import { HEARTBEAT_SLOT_MS } from '../../workflows/cadence/contract.js';
import type { Cadence, TaskTriggerSpec } from './types.js';

/**
 * Heartbeat slots are counted from the Unix epoch, so "every N heartbeats" is stable: it does
 * not depend on when a worker started or how many runs were skipped. N = 4 runs on the hour.
 */
export function heartbeatSlotIndex(slotAt: Date): number {
  return Math.floor(slotAt.getTime() / HEARTBEAT_SLOT_MS);
}

const parsedCrons = new Map<string, ReturnType<typeof parseCron>>();

/** Cron texts come from a handful of declarations: parse each once per process. */
function cachedCron(expression: string) {
  let parsed = parsedCrons.get(expression);
  if (!parsed) {
    parsed = parseCron(expression);
    if (parsedCrons.size > 1000) parsedCrons.clear();
    parsedCrons.set(expression, parsed);
  }
  return parsed;
}

function triggerDue(trigger: TaskTriggerSpec, cadence: Cadence, slotAt: Date): boolean {
  switch (trigger.type) {
    case 'heartbeats':
      return cadence === 'heartbeat' && heartbeatSlotIndex(slotAt) % trigger.every === 0;
    case 'cron': {
      if (cadence !== 'heartbeat') return false;
      const parsed = cachedCron(trigger.expression);
      return parsed.ok && cronMatches(parsed.schedule, slotAt, TIME_ZONE);
    }
    case 'cadence':
      return trigger.cadence === cadence;
    case 'automation_config':
      return false;
  }
}

/** Whether a task with these triggers is due in the given cadence's slot (cron read in Asia/Shanghai). */
export function isTaskDue(triggers: readonly TaskTriggerSpec[], cadence: Cadence, slotAt: Date): boolean {
  return triggers.some((t) => triggerDue(t, cadence, slotAt));
}

/** The schedule-driven triggers, as cadence strings; automation triggers are on demand only. */
export type CadenceFigures = { heartbeatMinutes: number; hourly: string; daily: string };

function cadenceOf(trigger: TaskTriggerSpec, figures: CadenceFigures): string | null {
  switch (trigger.type) {
    case 'heartbeats':
      return `${figures.heartbeatMinutes * trigger.every}m`;
    case 'cron':
      return trigger.expression;
    case 'cadence':
      return trigger.cadence === 'hourly' ? figures.hourly : figures.daily;
    case 'automation_config':
      return null;
  }
}

/**
 * A task's cadence: the figures of its schedule-driven triggers joined with `; `, or null when
 * it declares none (automation-only). Declared figures use the declarations (15-minute
 * heartbeat, daily time from the environment); effective ones the live Temporal Schedules.
 */
export function taskCadence(triggers: readonly TaskTriggerSpec[], figures: CadenceFigures): string | null {
  const parts = triggers.map((t) => cadenceOf(t, figures)).filter((c): c is string => c !== null);
  return parts.length > 0 ? [...new Set(parts)].join('; ') : null;
}

/** The schedule that drives a task's triggers (for its state and next run), or null when on demand. */
export function drivingCadences(triggers: readonly TaskTriggerSpec[]): Cadence[] {
  const found = new Set<Cadence>();
  for (const t of triggers) {
    if (t.type === 'heartbeats' || t.type === 'cron') found.add('heartbeat');
    if (t.type === 'cadence') found.add(t.cadence);
  }
  return [...found];
}

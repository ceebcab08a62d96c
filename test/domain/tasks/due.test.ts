import { describe, expect, it } from 'vitest';
import { heartbeatSlotIndex, isTaskDue, taskCadence } from '../../../domain/tasks/due.js';
import type { TaskTriggerSpec } from '../../../domain/tasks/types.js';
import { slotMinute, slotStart } from '../../../workflows/cadence/contract.js';

const at = (iso: string) => new Date(iso);

describe('slots', () => {
  it('start on the 15-minute boundary, the hour, or midnight in Asia/Shanghai', () => {
    expect(slotStart('heartbeat', at('2026-01-05T01:07:59Z')).toISOString()).toBe('2026-01-05T01:00:00.000Z');
    expect(slotStart('heartbeat', at('2026-01-05T01:15:00Z')).toISOString()).toBe('2026-01-05T01:15:00.000Z');
    expect(slotStart('hourly', at('2026-01-05T01:59:00Z')).toISOString()).toBe('2026-01-05T01:00:00.000Z');
    expect(slotStart('daily', at('2026-01-05T15:59:00Z')).toISOString()).toBe('2026-01-04T16:00:00.000Z');
    expect(slotStart('daily', at('2026-01-05T16:00:00Z')).toISOString()).toBe('2026-01-05T16:00:00.000Z');
    expect(slotMinute(at('2026-01-05T01:30:00Z'))).toBe(30);
  });
});

describe('due tasks at a heartbeat slot', () => {
  const every = (n: number): TaskTriggerSpec[] => [{ type: 'heartbeats', every: n }];

  it('every N heartbeats counts slots from the epoch, so it does not depend on when runs happened', () => {
    const slots = ['2026-01-05T00:00:00Z', '2026-01-05T00:15:00Z', '2026-01-05T00:30:00Z', '2026-01-05T00:45:00Z', '2026-01-05T01:00:00Z'];
    expect(slots.map((s) => isTaskDue(every(1), 'heartbeat', at(s)))).toEqual([true, true, true, true, true]);
    expect(slots.map((s) => isTaskDue(every(4), 'heartbeat', at(s)))).toEqual([true, false, false, false, true]);
    expect(slots.map((s) => isTaskDue(every(2), 'heartbeat', at(s)))).toEqual([true, false, true, false, true]);
    expect(heartbeatSlotIndex(at('2026-01-05T00:15:00Z')) - heartbeatSlotIndex(at('2026-01-05T00:00:00Z'))).toBe(1);
  });

  it('cron triggers are evaluated at the slot time in Asia/Shanghai', () => {
    const cron: TaskTriggerSpec[] = [{ type: 'cron', expression: '30 9 * * 1-5' }];
    expect(isTaskDue(cron, 'heartbeat', at('2026-01-05T01:30:00Z'))).toBe(true); // Monday 09:30
    expect(isTaskDue(cron, 'heartbeat', at('2026-01-05T01:15:00Z'))).toBe(false);
    expect(isTaskDue(cron, 'heartbeat', at('2026-01-04T01:30:00Z'))).toBe(false); // Sunday
    expect(isTaskDue(cron, 'hourly', at('2026-01-05T01:30:00Z'))).toBe(false);
  });

  it('automation-config triggers are never due; cadence triggers only on their schedule', () => {
    expect(isTaskDue([{ type: 'automation_config', key: 'x' }], 'heartbeat', at('2026-01-05T00:00:00Z'))).toBe(false);
    const daily: TaskTriggerSpec[] = [{ type: 'cadence', cadence: 'daily' }];
    expect(isTaskDue(daily, 'daily', at('2026-01-05T00:00:00Z'))).toBe(true);
    expect(isTaskDue(daily, 'heartbeat', at('2026-01-05T00:00:00Z'))).toBe(false);
  });

  it('a task with several triggers is due when any is', () => {
    const both: TaskTriggerSpec[] = [{ type: 'heartbeats', every: 96 }, { type: 'cron', expression: '45 23 * * *' }];
    expect(isTaskDue(both, 'heartbeat', at('2026-01-05T15:45:00Z'))).toBe(true); // 23:45 Shanghai
    expect(isTaskDue(both, 'heartbeat', at('2026-01-05T00:00:00Z'))).toBe(true); // slot index divisible by 96
    expect(isTaskDue(both, 'heartbeat', at('2026-01-05T00:15:00Z'))).toBe(false);
  });
});

describe('task cadence figures', () => {
  const figures = { heartbeatMinutes: 15, hourly: '60m', daily: '0 3 * * *' };

  it('are minutes, cron expressions, or null for automation-only tasks', () => {
    expect(taskCadence([{ type: 'heartbeats', every: 4 }], figures)).toBe('60m');
    expect(taskCadence([{ type: 'cron', expression: '0 9 * * *' }, { type: 'automation_config', key: 'x' }], figures)).toBe('0 9 * * *');
    expect(taskCadence([{ type: 'cadence', cadence: 'daily' }], figures)).toBe('0 3 * * *');
    expect(taskCadence([{ type: 'heartbeats', every: 1 }, { type: 'cron', expression: '0 9 * * *' }], figures)).toBe('15m; 0 9 * * *');
    expect(taskCadence([{ type: 'automation_config', key: 'x' }], figures)).toBeNull();
  });
});

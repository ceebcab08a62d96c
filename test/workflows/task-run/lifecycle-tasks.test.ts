import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEARTBEAT_WORKFLOW_TYPE } from '../../../workflows/heartbeat/contract.js';
import { createUser, daysFromNow, seedService } from '../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { builtinTasksDue } from '../../helpers/schedule-fixtures.js';
import { eventually } from '../../helpers/wait.js';

const BASE = '/api/v2/admin/schedules';
let platform: TestPlatform;
let token: string;

/** Every lifecycle job with its declared cadence (DAILY_SCHEDULE_TIME 03:00 by default). */
const LIFECYCLE_TASKS: Array<[string, string, string]> = [
  ['services.renewal_invoices', '60m', 'platform'],
  ['services.auto_renew', '60m', 'platform'],
  ['services.suspend_overdue', '60m', 'platform'],
  ['services.terminate_overdue', '60m', 'platform'],
  ['services.unsuspend_renewed', '15m', 'platform'],
  ['upstream.sync_hosts', '15m', 'automation'],
  ['notifications.due_reminders', '0 10 * * *', 'automation'],
  ['notifications.account_notices', '60m', 'automation'],
  ['billing.cancel_stale_invoices', '0 3 * * *', 'platform'],
  ['billing.close_expired_payments', '60m', 'platform'],
];

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true, schedules: true });
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

async function finishedRun(workflowId: string, after: number) {
  return eventually(async () => {
    const row = await platform.deps.db.models.TaskRun.findOne({ where: { workflow_id: workflowId }, order: [['id', 'DESC']] });
    return row && row.id > after && row.status !== 'running' ? row : null;
  });
}

async function lastRunId(): Promise<number> {
  return (await platform.deps.db.models.TaskRun.max('id')) ?? 0;
}

describe('the lifecycle jobs in the schedule overview', () => {
  it('are listed with their declared and effective cadences and can be triggered by an admin', async () => {
    // Live states come within a 2 s request deadline; on a loaded machine a first answer may say `unavailable`.
    const list = await eventually(async () => {
      const res = await platform.api.get(`${BASE}/overview`, { token });
      const items = res.body.data.list as Array<Record<string, unknown>>;
      return items.some((i) => i['state'] === 'unavailable') ? null : items;
    });
    const byKey = new Map(list.map((i) => [i['key'], i]));
    for (const [key, cadence, queue] of LIFECYCLE_TASKS) {
      expect(byKey.get(key), key).toMatchObject({ kind: 'task', source: 'builtin', declared_cadence: cadence, effective_cadence: cadence, state: 'active', manual_triggerable: true, queue });
    }
  });
});

describe('running the lifecycle jobs through Temporal', () => {
  it('each job runs from the admin trigger and records its summary', async () => {
    for (const [key] of LIFECYCLE_TASKS) {
      const before = await lastRunId();
      const res = await platform.api.post(`${BASE}/${key}/trigger`, { token });
      expect(res.body.code, `${key}: ${res.body.message}`).toBe(0);
      const run = await finishedRun(res.body.data.workflow_id, before);
      expect(run, key).toMatchObject({ task_key: key, status: 'succeeded', trigger: 'manual', error: null });
      expect(run.summary, key).not.toBeNull();
    }
  });

  it('a triggered suspension run suspends an overdue service (no upstream binding: locally); its notice waits for an SMS plugin', async () => {
    const user = await createUser(platform, { email: null });
    const id = await seedService(platform, { userId: user.id, nextDueAt: daysFromNow(-4) });
    const before = await lastRunId();
    const res = await platform.api.post(`${BASE}/services.suspend_overdue/trigger`, { token });
    const run = await finishedRun(res.body.data.workflow_id, before);
    expect(run.summary).toMatchObject({ candidates: 1, changed_locally: 1, failed: 0, notices: { notices: 1, mail_no_recipient: 1, sms_unavailable: 1 } });
    expect((await platform.deps.db.models.Service.findByPk(id))?.status).toBe('suspended');
    const detail = await platform.api.get(`${BASE}/task-runs/${run.id}`, { token });
    expect(detail.body.data.summary).toMatchObject({ changed_locally: 1 });
  });

  it('the heartbeat starts the host poll and the unsuspension at every slot', async () => {
    const slotAt = '2026-02-02T06:15:00.000Z';
    const handle = await platform.temporal.workflow.start(HEARTBEAT_WORKFLOW_TYPE, {
      workflowId: `test-heartbeat:${platform.id}:lifecycle`,
      taskQueue: platform.deps.config.temporal.automationQueue,
      args: [{ trigger: 'manual', slotAt }],
    });
    const result = (await handle.result()) as { summary: Record<string, number> };
    // The built-in tasks of the slot (the registry's), among them the unsuspension and the host poll.
    expect(result.summary).toMatchObject({ tasks_started: builtinTasksDue('heartbeat', slotAt), tasks_skipped: 0 });
    for (const key of ['services.unsuspend_renewed', 'upstream.sync_hosts', 'upstream.balances']) {
      const run = await eventually(async () => {
        const row = await platform.deps.db.models.TaskRun.findOne({ where: { task_key: key, slot_at: new Date(slotAt) } });
        return row && row.status !== 'running' ? row : null;
      });
      expect(run).toMatchObject({ status: 'succeeded', trigger: 'heartbeat' });
    }
  });
});

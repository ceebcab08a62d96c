import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient } from '../../helpers/billing.js';
import { selectRows } from '../../helpers/db-read.js';
import { seedService } from '../../helpers/lifecycle.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { eventually } from '../../helpers/wait.js';

/**
 * `dashboard.fold_figures` end to end (its exactness under concurrent writers is tested with the
 * dashboard, test/api/routes/admin/dashboard.test.ts): triggered by an admin like any built-in
 * task, it folds each status's delta rows into one and records its run.
 */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true });
});
afterAll(() => platform?.close());

describe('dashboard.fold_figures', () => {
  it('is triggered like any built-in task, folds the delta rows into one per status and changes no figure', async () => {
    const token = await platform.rootToken();
    const userId = (await registerClient(platform)).id;
    const services = [await seedService(platform, { userId, nextDueAt: null }), await seedService(platform, { userId, nextDueAt: null })];
    await selectRows(platform, `UPDATE services SET status = 'suspended' WHERE id = $1 RETURNING id`, [services[0]]);
    const before = (await platform.api.get('/api/v2/admin/dashboard', { token })).body.data;
    const [rows] = await selectRows<{ n: number }>(platform, `SELECT count(*)::int AS n FROM service_status_deltas WHERE status = 'active'`);
    expect(rows!.n).toBeGreaterThan(1);

    const res = await platform.api.post('/api/v2/admin/schedules/dashboard.fold_figures/trigger', { token });
    expect(res.body.data).toMatchObject({ key: 'dashboard.fold_figures', kind: 'task' });
    const run = await eventually(async () => {
      const row = await platform.deps.db.models.TaskRun.findOne({ where: { workflow_id: res.body.data.workflow_id }, order: [['id', 'DESC']] });
      return row && row.status !== 'running' ? row : null;
    });
    expect(run).toMatchObject({ status: 'succeeded', trigger: 'manual' });
    expect((run.summary as { service_status_rows: number }).service_status_rows).toBeGreaterThan(1);

    const [folded] = await selectRows<{ n: number }>(platform, `SELECT count(*)::int AS n FROM service_status_deltas WHERE status = 'active'`);
    expect(folded!.n).toBe(1);
    const after = (await platform.api.get('/api/v2/admin/dashboard', { token })).body.data;
    expect(after.state.active_services).toBe(before.state.active_services);
    expect(after.today).toEqual(before.today);
  });
});

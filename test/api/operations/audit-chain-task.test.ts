import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Op, QueryTypes } from 'sequelize';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { eventually } from '../../helpers/wait.js';

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true });
  token = await platform.rootToken();
});
afterAll(() => platform?.close());

/** The run of `workflowId` newer than `afterId`, once finished (runs of one task share the workflow id). */
async function finishedRun(workflowId: string, afterId = 0) {
  return eventually(async () =>
    platform.deps.db.models.TaskRun.findOne({
      where: { workflow_id: workflowId, status: ['succeeded', 'failed'], id: { [Op.gt]: afterId } },
      order: [['id', 'DESC']],
    }),
  );
}

describe('the daily audit chain task (audit.verify-chain)', () => {
  it('records the head in its summary and the system log, and fails its run when a row was edited by hand', async () => {
    expect((await platform.api.post('/api/v2/admin/users', { token, body: { email: 'chain@example.com', password: 'chain-Secret-pw-2026' } })).body.code).toBe(0);
    await platform.deps.operations?.audit.flush();
    const res = await platform.api.post('/api/v2/admin/schedules/audit.verify-chain/trigger', { token });
    expect(res.body.code, res.body.message).toBe(0);
    const run = await finishedRun(res.body.data.workflow_id);
    const [head] = await platform.deps.db.sequelize.query<{ seq: string; hash: string }>('SELECT seq::text AS seq, hash FROM admin_audit_chain_head', {
      type: QueryTypes.SELECT,
    });
    expect(run.status).toBe('succeeded');
    // The trigger call itself is audited: the head may have moved past what the run saw, never behind it.
    expect(Number((run.summary as { head_seq: number }).head_seq)).toBeLessThanOrEqual(Number(head?.seq));
    expect(run.summary).toMatchObject({ intact: true, break_kind: null });

    // A row written after the run's checkpoint: the next daily run reads it (rows before the checkpoint are the full check's).
    expect((await platform.api.post('/api/v2/admin/users', { token, body: { email: 'chain2@example.com', password: 'chain-Secret-pw-2026' } })).body.code).toBe(0);
    await platform.deps.operations?.audit.flush();
    const [checkpoint] = await platform.deps.db.sequelize.query<{ chain_seq: string }>('SELECT chain_seq::text AS chain_seq FROM admin_audit_chain_checkpoints ORDER BY id DESC LIMIT 1', {
      type: QueryTypes.SELECT,
    });
    expect(Number(checkpoint?.chain_seq)).toBe(Number((run.summary as { head_seq: number }).head_seq));
    const [row] = await platform.deps.db.sequelize.query<{ id: string }>(`SELECT id::text AS id FROM admin_audit_logs WHERE chain_seq > $1 ORDER BY id DESC LIMIT 1`, {
      bind: [checkpoint?.chain_seq],
      type: QueryTypes.SELECT,
    });
    await platform.deps.db.sequelize.transaction(async (transaction) => {
      await platform.deps.db.sequelize.query('ALTER TABLE admin_audit_logs DISABLE TRIGGER USER', { transaction });
      await platform.deps.db.sequelize.query(`UPDATE admin_audit_logs SET ip = '10.0.0.1' WHERE id = $1`, { bind: [row?.id], transaction });
      await platform.deps.db.sequelize.query('ALTER TABLE admin_audit_logs ENABLE TRIGGER USER', { transaction });
    });
    // The run row is final a moment before its workflow closes; a trigger before that is skipped as an overlap.
    await platform.temporal.workflow.getHandle(res.body.data.workflow_id).result().catch(() => {});
    const again = await platform.api.post('/api/v2/admin/schedules/audit.verify-chain/trigger', { token });
    const failed = await finishedRun(again.body.data.workflow_id, run.id);
    expect(failed.status).toBe('failed');
    const logs = await platform.api.get('/api/v2/admin/logs/system-logs', { token, query: { category: 'audit' } });
    expect(logs.body.data.list.map((r: { event: string }) => r.event)).toEqual(['audit.chain.broken', 'audit.chain.intact']);
  });
});

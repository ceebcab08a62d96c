import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction, sqlOne, sqlRows } from '../../db/sql.js';
import { insertAuditRecord } from '../../domain/logs/admin-audit.js';
import { verifyAuditChain } from '../../domain/logs/audit-chain.js';
import { type PendingAudit, runWithRequestContext } from '../../lib/request-context.js';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js';

/**
 * An admin write's audit row commits with its change also when the request has two
 * transactions open at once: the first of them to commit writes it (never waiting long for the
 * chain head, which the other may hold), instead of leaving it to a row written after the answer.
 */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform?.close();
});

/** One change of the request: a row of a table nothing else reads here. */
async function change(tx: Parameters<Parameters<typeof inTransaction>[1]>[0], tag: string) {
  await sqlOne(
    platform.deps,
    `INSERT INTO two_factor_challenges (token_hash, surface, subject_id, account, expires_at) VALUES ($1, 'admin', 1, $2, now()) RETURNING token_hash`,
    [randomBytes(32).toString('hex'), tag],
    tx,
  );
}

describe('an admin write with two transactions open at once', () => {
  it('commits its audit row with the first of them that commits', async () => {
    const requestId = `two-tx-${randomBytes(4).toString('hex')}`;
    const pending: PendingAudit = {
      state: 'open',
      open: 0,
      write: (query) =>
        insertAuditRecord(query, {
          adminId: 1, adminName: 'root', method: 'POST', route: '/test/two-transactions', status: 200, code: 0, targetType: null, targetId: null,
          action: 'create', before: null, after: null, request: null, requestId, ip: '127.0.0.1', userAgent: 'test', at: new Date(),
        }),
    };
    let bothChanged!: () => void;
    const changed = new Promise<void>((resolve) => (bothChanged = resolve));
    let count = 0;
    const arrive = () => {
      count += 1;
      if (count === 2) bothChanged();
    };
    await runWithRequestContext({ requestId, ip: '127.0.0.1', userAgent: 'test', pendingAudit: pending }, () =>
      Promise.all(
        ['first', 'second'].map((tag) =>
          inTransaction(platform.deps, async (tx) => {
            await change(tx, `${requestId}-${tag}`);
            // Each commits while the other is open.
            arrive();
            await changed;
          }),
        ),
      ),
    );
    expect(pending.state).toBe('written');
    const rows = await sqlRows<{ n: number }>(platform.deps, `SELECT count(*)::int AS n FROM admin_audit_logs WHERE request_id = $1`, [requestId]);
    expect(rows[0]?.n).toBe(1);
    const changes = await sqlRows<{ n: number }>(platform.deps, `SELECT count(*)::int AS n FROM two_factor_challenges WHERE account LIKE $1`, [`${requestId}-%`]);
    expect(changes[0]?.n).toBe(2);
    expect((await verifyAuditChain(platform.deps)).intact).toBe(true);
  });
});

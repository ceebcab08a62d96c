import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction, sqlOne, sqlRows } from '../../db/sql.js';
import { insertAuditRecord } from '../../domain/logs/admin-audit.js';
import { verifyAuditChain } from '../../domain/logs/audit-chain.js';
import { type PendingAudit, runWithRequestContext } from '../../lib/request-context.js';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js';

/**
 * Every change of an admin write commits with a row of the call in its own transaction: the first
 * transaction that commits inserts the `request` row, each later one an `answer` row naming the
 * call, also when two are open at once (never waiting long for the chain head, which the other may
 * hold: then the second is refused and rolls back, rather than commit without a row).
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

function pendingFor(requestId: string): PendingAudit {
  return {
    written: false,
    closed: false,
    open: 0,
    write: (query, source) =>
      insertAuditRecord(query, {
        source, adminId: 1, adminName: 'root', method: 'POST', route: '/test/two-transactions', status: 200, code: 0, targetType: null, targetId: null,
        action: 'create', before: null, after: null, request: null, requestId, ip: '127.0.0.1', userAgent: 'test', at: new Date(),
      }),
  };
}

async function sourcesOf(requestId: string): Promise<string[]> {
  const rows = await sqlRows<{ source: string }>(platform.deps, `SELECT source FROM admin_audit_logs WHERE request_id = $1 ORDER BY id`, [requestId]);
  return rows.map((r) => r.source);
}

async function changesOf(requestId: string): Promise<number> {
  const rows = await sqlRows<{ n: number }>(platform.deps, `SELECT count(*)::int AS n FROM two_factor_challenges WHERE account LIKE $1`, [`${requestId}-%`]);
  return rows[0]?.n ?? 0;
}

describe('an admin write with two transactions', () => {
  it('one after the other: each commits with a row of the call (the request row, then an answer row)', async () => {
    const requestId = `seq-tx-${randomBytes(4).toString('hex')}`;
    const pending = pendingFor(requestId);
    await runWithRequestContext({ requestId, ip: '127.0.0.1', userAgent: 'test', pendingAudit: pending }, async () => {
      await inTransaction(platform.deps, (tx) => change(tx, `${requestId}-first`));
      await inTransaction(platform.deps, (tx) => change(tx, `${requestId}-second`));
    });
    expect(pending.written).toBe(true);
    expect(await sourcesOf(requestId)).toEqual(['request', 'answer']);
    expect(await changesOf(requestId)).toBe(2);
  });

  it('open at once: each commits with its own row', async () => {
    const requestId = `two-tx-${randomBytes(4).toString('hex')}`;
    const pending = pendingFor(requestId);
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
    expect(pending.written).toBe(true);
    // Both claimed the call's row before either committed: two request rows, one per change.
    expect(await sourcesOf(requestId)).toEqual(['request', 'request']);
    expect(await changesOf(requestId)).toBe(2);
    expect((await verifyAuditChain(platform.deps)).intact).toBe(true);
  });

  it('a transaction beside one that holds the chain head is refused and rolls back, never committing without its row', async () => {
    const requestId = `beside-tx-${randomBytes(4).toString('hex')}`;
    const pending = pendingFor(requestId);
    const outcome = await runWithRequestContext({ requestId, ip: '127.0.0.1', userAgent: 'test', pendingAudit: pending }, () =>
      inTransaction(platform.deps, async (outer) => {
        await change(outer, `${requestId}-outer`);
        // The outer transaction holds the chain head (an audit row inserted early, as a catalogue diff is) ...
        await insertAuditRecord((text, bind) => sqlRows(platform.deps, text, bind, outer), {
          adminId: 1, adminName: 'root', method: 'POST', route: '/test/early-row', status: 200, code: 0, targetType: null, targetId: null,
          action: 'test', before: null, after: null, request: null, requestId: `${requestId}-early`, ip: '', userAgent: '', at: new Date(),
        });
        // ... and waits for a second transaction of the request, on another connection.
        return inTransaction(platform.deps, (inner) => change(inner, `${requestId}-inner`)).then(
          () => 'committed',
          (err: unknown) => `refused: ${(err as { code?: string }).code}`,
        );
      }),
    );
    expect(outcome).toBe('refused: 55P03');
    // The outer one committed with the call's row; the inner change is not there.
    expect(await sourcesOf(requestId)).toEqual(['request']);
    expect(await changesOf(requestId)).toBe(1);
    expect((await verifyAuditChain(platform.deps)).intact).toBe(true);
  });
});

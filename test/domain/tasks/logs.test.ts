import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOne, sqlRows } from '../../../db/sql.js';
import { runTask } from '../../../domain/tasks/run-task.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';
import { captureStatements, explainQueries, indexReadsOf, seqScansOf } from '../../helpers/query-plans.js';

/**
 * `logs.retention_cleanup` over 140,000 log rows of which 20,100 are past retention: the request
 * log (partitioned by month) loses its months past retention whole, without a DELETE; the
 * notification log's deletes read it through the index of its cut-off column (a range of the old
 * rows), never a sequential scan nor a walk of the primary key filtering the young rows; exactly
 * the old rows go, and a second run deletes nothing.
 */

let platform: TestPlatform;

const run = () => runTask(platform.deps, { taskRunId: null as unknown as number, taskKey: 'logs.retention_cleanup', trigger: 'manual', slotAt: null });

beforeAll(async () => {
  platform = await startTestPlatform();
  const deps = platform.deps;
  const user = await sqlOne<{ id: number }>(deps, `INSERT INTO users (email, password_hash) VALUES ('logs-owner@example.com', 'x') RETURNING id`, []);
  // API request logs: 80,000 young (retention 30 days by default) and 20,000 in a month wholly past it.
  await sqlRows(
    deps,
    `INSERT INTO api_request_logs (method, route, status, duration_ms, created_at)
     SELECT 'GET', '/api/v2/client/services', 200, 5, CASE WHEN g % 5 = 0 THEN now() - interval '200 days' ELSE now() - (g % 20) * interval '1 day' END
       FROM generate_series(1, 100000) g`,
    [],
  );
  // Notification log: 40,000 young, 100 past NOTIFICATION_LOG_RETENTION_DAYS.
  await sqlRows(
    deps,
    `INSERT INTO notification_log (kind, channel, entity_type, entity_id, occasion, user_id, recipient, subject, status, attempts, sent_at, created_at)
     SELECT 'renewal_due', 'mail', 'service', g, 'o' || g, $1, 'lo***@example.com', '到期提醒', 'sent', 1, now(),
            CASE WHEN g % 401 = 0 THEN now() - interval '800 days' ELSE now() - (g % 20) * interval '1 day' END
       FROM generate_series(1, 40100) g`,
    [user!.id],
  );
  await sqlRows(deps, 'ANALYZE api_request_logs', []);
  await sqlRows(deps, 'ANALYZE notification_log', []);
}, 300_000);

afterAll(() => platform?.close());

describe('logs.retention_cleanup over large log tables', () => {
  it('deletes exactly the rows past retention through each cut-off index; a second run deletes nothing', async () => {
    const count = async (table: string) => (await sqlOne<{ n: number }>(platform.deps, `SELECT count(*)::int AS n FROM ${table}`, []))?.n;
    const before = { api: await count('api_request_logs'), notices: await count('notification_log') };

    const first = await captureStatements(run);
    expect(first.result).toMatchObject({ api_request_logs_deleted: 20000, notification_log_deleted: 100 });
    expect({ api: await count('api_request_logs'), notices: await count('notification_log') }).toEqual({ api: before.api! - 20000, notices: before.notices! - 100 });
    const old = await sqlOne<{ n: number }>(platform.deps, `SELECT count(*)::int AS n FROM api_request_logs WHERE created_at < now() - interval '100 days'`, []);
    expect(old?.n).toBe(0);

    const second = await captureStatements(run);
    expect(second.result).toMatchObject({ api_request_logs_deleted: 0, notification_log_deleted: 0 });
    for (const captured of [first, second]) {
      const plans = await explainQueries(
        platform.deps,
        captured.queries.filter((q) => /^\s*(WITH|SELECT|DELETE)\b/i.test(q.text) && /\b(api_request_logs|notification_log)\b/.test(q.text)),
      );
      expect(seqScansOf(plans, ['api_request_logs', 'notification_log'])).toEqual([]);
      const reads = indexReadsOf(plans);
      // The request log is never deleted from row by row (its months are dropped whole)…
      expect(captured.queries.filter((q) => /DELETE FROM api_request_logs/.test(q.text))).toEqual([]);
      // …and the notification log's old rows are a range of its created_at index…
      expect(reads.some((r) => r.startsWith('notification_log_created_idx cond: (created_at <'))).toBe(true);
      // …and no index is walked filtering rows by age (the old plan: the primary key in id order, `filter: (created_at < …)`).
      expect(reads.filter((r) => r.includes('filter: (created_at'))).toEqual([]);
    }
  });
});

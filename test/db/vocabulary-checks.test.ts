import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVOICE_TYPES, ORDER_TYPES } from '../../db/models/billing.js';
import { UPSTREAM_ROUTING_POLICIES } from '../../db/models/catalogue.js';
import { NOTIFICATION_ENTITY_TYPES, NOTIFICATION_KINDS } from '../../db/models/notification-log.js';
import { SYSTEM_LOG_CATEGORIES } from '../../domain/logs/system-logs.js';
import { INTENT_KINDS } from '../../domain/outbox/intents.js';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.js';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

/** The values a vocabulary CHECK of the migrated database allows (one quoted literal each, or an array literal). */
async function allowed(table: string, column: string): Promise<string[]> {
  const rows = await platform.deps.db.read<{ def: string }>(
    `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
      WHERE conrelid = $1::regclass AND contype = 'c' AND pg_get_constraintdef(oid) ~ ('\\m' || $2 || '\\M\\)?::text = ANY')
        AND pg_get_constraintdef(oid) !~ '( AND | OR )'`,
    [table, column],
  );
  expect(rows).toHaveLength(1);
  return [...rows[0]!.def.matchAll(/'([^']+)'/g)].flatMap((m) => (m[1]!.startsWith('{') ? m[1]!.slice(1, -1).split(',') : [m[1]!])).sort();
}

// Several migrations extend the same vocabularies (db/migrations/extend-check.ts): none may undo another's.
describe('vocabulary CHECKs after every migration', () => {
  it.each([
    ['invoices', 'type', INVOICE_TYPES],
    ['orders', 'type', ORDER_TYPES],
    ['outbox', 'kind', INTENT_KINDS],
    ['notification_log', 'kind', NOTIFICATION_KINDS],
    ['notification_log', 'entity_type', NOTIFICATION_ENTITY_TYPES],
    ['system_logs', 'category', SYSTEM_LOG_CATEGORIES],
    ['products', 'upstream_routing', UPSTREAM_ROUTING_POLICIES],
  ] as const)('%s.%s allows exactly the stored vocabulary of the code', async (table, column, values) => {
    expect(await allowed(table, column)).toEqual([...values].sort());
  });
});

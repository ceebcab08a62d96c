import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { seedBenchData } from '../../bench/lib/seed.js';
import { startBare } from '../../bench/lib/start-bare.js';
import type { RunningServer } from '../../bench/lib/server-child.js';
import { migrationDatabase } from '../helpers/migration-database.js';

/**
 * The bare side of the client read pair (bench/bare-server.ts) runs the statements the API sends
 * for the client's invoice list, captured with their parameters at seed time: it answers the
 * same page and total as the API's list. A statement captured without its parameters (`$1`
 * with nothing bound) made every bare request answer 500 and stopped `npm run bench`.
 */
describe('bench: the bare client invoice list', () => {
  const database = migrationDatabase();
  let bare: RunningServer | null = null;
  const controller = new AbortController();
  afterAll(async () => {
    controller.abort();
    await bare?.stop();
  });

  it('answers the seeded client’s first page of 20 and its total from the captured statements', async () => {
    const seed = await seedBenchData({
      databaseUrl: database.url,
      temporalAddress: inject('temporalAddress'),
      secretKey: randomBytes(32).toString('base64url'),
      users: 2,
      catalogueCopies: 1,
    });
    expect(seed.client.statements).toHaveLength(2);
    expect(seed.client.statements.some((q) => q.values.length > 0)).toBe(true);
    bare = await startBare({ databaseUrl: database.url, poolMax: 2, clientStatements: seed.client.statements }, { signal: controller.signal, log: () => {} });
    const res = await fetch(`${bare.baseUrl}/client/invoices`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { list: { id: number }[]; total: number } };
    expect(body.data.list).toHaveLength(20);
    expect(body.data.total).toBe(seed.client.invoices);
  }, 180_000);
});

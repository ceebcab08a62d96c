import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateBusiness, type ScaleSizes } from '../../../bench/scale/generate.js';
import { captureQueries, knownScan, pathIdsOf, readRequests, sequentialScans, type OpenApiDocument, type ReadRequest } from '../../../bench/scale/route-scan.js';
import { hashPassword } from '../../../domain/auth/passwords.js';
import { LIST_WINDOW } from '../../../lib/paging.js';
import { seedDemoCatalogue } from '../../../scripts/seeders/catalogue.js';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.js';

/**
 * Issue #35: no read a person waits on scans a large table sequentially. The years-of-business
 * generator fills this file's database (SCALE_TEST_CLIENTS clients, 4,000 by default: 12,000
 * services, 120,000 invoices, 400,000 request-log rows), then every admin GET of the OpenAPI
 * document (first page, the deepest page of the window, each documented filter alone) and a
 * heavy client's own lists are requested through the API, and each statement they sent is
 * EXPLAINed: a `Seq Scan` of a large table (below) fails the test, naming the route and the
 * statement. `npm run bench` (BENCH_ONLY=scale) makes the same check at 10×.
 */
const CLIENTS = Number(process.env.SCALE_TEST_CLIENTS ?? 4000);
/**
 * Large: over twice the paging window. A smaller table is read whole by a deep page or a count
 * at this size anyway, and the planner rightly scans it; at 10× the bench checks every table.
 */
const LARGE = 2 * LIST_WINDOW;

describe('reads at the size of a reseller’s third year', () => {
  let platform: TestPlatform;
  let db: pg.Client;
  let sizes: ScaleSizes;
  let adminToken: string;
  let clientToken: string;
  let requests: ReadRequest[];

  beforeAll(async () => {
    platform = await startTestPlatform();
    await seedDemoCatalogue(platform.deps);
    db = new pg.Client({ connectionString: platform.env.DATABASE_URL });
    await db.connect();
    sizes = await generateBusiness(db, { clients: CLIENTS, heavyInvoices: LIST_WINDOW + 500 });
    await db.query('UPDATE users SET password_hash = $1 WHERE id = $2', [await hashPassword('scale-client-password-1'), sizes.heavyUserId]);
    const email = (await db.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [sizes.heavyUserId])).rows[0]!.email;
    adminToken = await platform.rootToken();
    const login = await platform.api.post('/api/v2/client/login', { body: { account: email, password: 'scale-client-password-1' } });
    clientToken = login.body.data.access_token as string;
    const doc = (await (await fetch(`${platform.baseUrl}/api/openapi.json`)).json()) as OpenApiDocument;
    const { pathIds } = await pathIdsOf(db, doc, sizes.heavyUserId);
    requests = readRequests(doc, { userId: sizes.heavyUserId, fallbackId: 1, pathIds });
  }, 600_000);

  afterAll(async () => {
    await db?.end();
    await platform?.close();
  });

  it('generates the data of every kind at the asked size', async () => {
    const count = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);
    expect(await count("SELECT count(*) AS n FROM users WHERE email LIKE 'scale-%'")).toBe(CLIENTS);
    expect(await count('SELECT count(*) AS n FROM services')).toBe(sizes.services);
    expect(await count('SELECT count(DISTINCT status) AS n FROM services')).toBe(7);
    expect(await count('SELECT count(DISTINCT type) AS n FROM invoices')).toBeGreaterThanOrEqual(7);
    expect(await count('SELECT count(*) AS n FROM invoices')).toBe(sizes.invoices);
    expect(await count(`SELECT count(*) AS n FROM invoices WHERE user_id = ${sizes.heavyUserId}`)).toBeGreaterThan(LIST_WINDOW);
    // The ledger was written with triggers off: every account ends where its chain ends.
    expect(
      await count(`SELECT count(*) AS n FROM user_accounts a WHERE a.balance <> COALESCE((SELECT sum(amount) FROM account_transactions t WHERE t.user_id = a.user_id), 0)
                     OR a.last_seq <> (SELECT count(*) FROM account_transactions t WHERE t.user_id = a.user_id)`),
    ).toBe(0);
    // The dashboard's kept figures (migration 0044; triggers are off for the load) are made again from the rows.
    expect(await count(`SELECT count(*) AS n FROM (SELECT status, count(*) AS n FROM services GROUP BY status
                          EXCEPT SELECT status, sum(delta) FROM service_status_deltas GROUP BY status) d`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM (SELECT status, count(*) AS n FROM tickets GROUP BY status
                          EXCEPT SELECT status, sum(delta) FROM ticket_status_deltas GROUP BY status) d`)).toBe(0);
    expect(
      await count(`SELECT count(*) AS n FROM (
                     SELECT (paid_at AT TIME ZONE 'Asia/Shanghai')::date AS day, type::text, sum(amount) AS amount, count(*) AS n FROM invoices
                      WHERE status IN ('paid', 'partially_refunded', 'refunded') GROUP BY 1, 2
                     EXCEPT SELECT day, type::text, sum(amount), sum(n) FROM daily_money_deltas WHERE source = 'invoice' GROUP BY 1, 2) d`),
    ).toBe(0);
    const verify = await platform.api.get('/api/v2/admin/audit-logs/verify', { token: adminToken });
    expect(verify.body.data.intact).toBe(true);
  });

  it('answers every admin and client read with 2xx and without a sequential scan of a large table', async () => {
    expect(requests.length).toBeGreaterThan(300);
    const scans: string[] = [];
    const failures: string[] = [];
    for (const request of requests) {
      const token = request.surface === 'admin' ? adminToken : clientToken;
      const { result, queries } = await captureQueries(() => platform.api.get(request.url, { token }));
      // Every path id is a row of the data and every deep page inside its window: a 4xx would time an error, not the read.
      if (result.status >= 400) failures.push(`${request.url}: HTTP ${result.status}`);
      if (knownScan(request.route)) continue;
      for (const scan of await sequentialScans(db, queries, LARGE)) scans.push(`${request.url} → ${scan}`);
    }
    expect(failures).toEqual([]);
    expect(scans).toEqual([]);
  }, 600_000);

  it('pages only inside the window and counts up to it', async () => {
    const first = await platform.api.get('/api/v2/client/invoices', { token: clientToken });
    expect(first.body.data.total).toBe(LIST_WINDOW);
    const last = await platform.api.get('/api/v2/client/invoices', { token: clientToken, query: { page: String(LIST_WINDOW / 20) } });
    expect(last.body.data.list).toHaveLength(20);
    const past = await platform.api.get('/api/v2/client/invoices', { token: clientToken, query: { page: String(LIST_WINDOW / 20 + 1) } });
    expect(past.status).toBe(422);
    expect(JSON.stringify(past.body.data)).toContain(`只能翻阅前 ${LIST_WINDOW} 条记录`);
    const big = await platform.api.get('/api/v2/admin/invoices', { token: adminToken, query: { page_size: '100', page: String(LIST_WINDOW / 100 + 1) } });
    expect(big.status).toBe(422);
  });
});

// Purchases per second through one entry URL (the cluster's balancer or `npm run dev`'s API):
//   BENCH_URL=http://127.0.0.1:8090 ADMIN_PASSWORD=… [DATABASE_URL=…] node --import tsx bench/cluster/purchases.ts
// (BENCH_PURCHASES 200, BENCH_PURCHASE_CONNECTIONS 16, BENCH_UPSTREAM_URL the upstream sandbox,
// http://127.0.0.1:18205: the cluster's). Each purchase is a new client's invoice for the demo
// upstream cloud server without upstream stock limit, paid from the balance (the admin recharges
// every client first, untimed). With DATABASE_URL it also waits until every service is active and
// prints the provisioning rate. `npm run bench` runs it against both launchers
// (bench/cluster/run-cluster-vs-dev.ts).
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** The demo product (scripts/seeders/dev-demo.ts) bought from the upstream sandbox. */
const DEMO_UPSTREAM_PRODUCT = '美国洛杉矶云服务器';
/** Waiting for the services gives up after this long without one more leaving pending or provisioning. */
const STALL_MS = 120_000;

export type PurchasesOptions = {
  /** The entry URL: the balancer, or the dev API. */
  baseUrl: string;
  adminUsername: string;
  adminPassword: string;
  /** The upstream sandbox's URL (its `/__control/…` endpoints). */
  upstreamControlUrl: string;
  total: number;
  /** Purchases in flight at once. */
  concurrency: number;
  /** The platform's database: when given, waits until every service is active (the provisioning rate). */
  databaseUrl?: string;
  signal?: AbortSignal;
  log?: (m: string) => void;
};

export type PurchasesResult = {
  baseUrl: string;
  total: number;
  concurrency: number;
  /** Purchases that failed (a non-2xx or non-zero code from the invoice or the payment). */
  failed: number;
  /** The first few failures, for the report. */
  errors: string[];
  /** First purchase sent → last one answered. */
  seconds: number;
  /** Successful purchases per second. */
  perSecond: number;
  /** With a database: services of the purchases that ended active, and when the last one did (from the first purchase). */
  active?: number;
  activeSeconds?: number;
  provisionedPerSecond?: number;
};

/** Runs `fn` over `items` with `concurrency` in flight. */
async function inPool<T>(items: T[], concurrency: number, signal: AbortSignal | undefined, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        signal?.throwIfAborted();
        await fn(items[next++] as T);
      }
    }),
  );
}

export async function runPurchases(options: PurchasesOptions): Promise<PurchasesResult> {
  const { baseUrl, total, concurrency, signal } = options;
  const log = options.log ?? (() => {});
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
      ...(signal ? { signal } : {}),
    });
    const text = await res.text();
    let json: { code?: number; message?: string; data?: Record<string, unknown> } = {};
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      // not JSON: reported below with the status
    }
    if (!res.ok || json.code !== 0) throw new Error(`${method} ${path}: ${res.status} ${json.code ?? ''} ${json.message ?? text.slice(0, 200)}`);
    return json.data ?? {};
  };

  const admin = (await call('POST', '/api/v2/admin/login', { username: options.adminUsername, password: options.adminPassword })).access_token as string;
  const products = (await call('GET', '/api/v2/site/products')) as unknown as { list: Array<{ id: number; name: string }> };
  const product = products.list.find((p) => p.name.includes(DEMO_UPSTREAM_PRODUCT));
  if (!product) throw new Error(`demo upstream product (${DEMO_UPSTREAM_PRODUCT}) not found at ${baseUrl}`);
  // Enough local stock, upstream hosts and upstream credit for every purchase.
  await call('PUT', `/api/v2/admin/products/${product.id}`, { stock_control: false }, admin);
  for (const [path, body] of [
    ['seed-hosts', `count=${total + 10}`],
    ['credit', 'amount=100000000.00'],
  ] as const) {
    const res = await fetch(`${options.upstreamControlUrl}/__control/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      ...(signal ? { signal } : {}),
    });
    if (!res.ok) throw new Error(`upstream sandbox ${path}: ${res.status} ${await res.text()}`);
  }

  log(`purchases: ${total} clients registered and recharged through ${baseUrl} (untimed)…`);
  const clients: Array<{ token: string; invoiceNo?: string }> = [];
  await inPool(
    Array.from({ length: total }, (_, i) => i),
    concurrency,
    signal,
    async () => {
      const reg = await call('POST', '/api/v2/client/register', { email: `bench-${randomBytes(6).toString('hex')}@example.com`, password: 'bench-password-1' });
      const user = reg.user as { id: number };
      await call('POST', `/api/v2/admin/users/${user.id}/recharges`, { amount: '1000.00', remark: 'bench' }, admin);
      clients.push({ token: reg.access_token as string });
    },
  );

  log(`purchases: ${total} (invoice + balance payment), ${concurrency} at once…`);
  const errors: string[] = [];
  let failed = 0;
  const started = performance.now();
  await inPool(clients, concurrency, signal, async (client) => {
    try {
      const invoice = await call('POST', '/api/v2/client/invoices', { product_id: product.id, billing_period: 'monthly' }, client.token);
      await call('POST', `/api/v2/client/invoices/${invoice.id}/pay/balance`, undefined, client.token);
      client.invoiceNo = invoice.invoice_no as string;
    } catch (err) {
      signal?.throwIfAborted();
      failed += 1;
      if (errors.length < 5) errors.push(err instanceof Error ? err.message : String(err));
    }
  });
  const seconds = (performance.now() - started) / 1000;
  const result: PurchasesResult = { baseUrl, total, concurrency, failed, errors, seconds, perSecond: (total - failed) / seconds };
  if (!options.databaseUrl) return result;

  const db = new pg.Client({ connectionString: options.databaseUrl });
  await db.connect();
  try {
    const numbers = clients.flatMap((c) => (c.invoiceNo ? [c.invoiceNo] : []));
    let active = 0;
    let settled = -1;
    let lastProgress = performance.now();
    for (;;) {
      signal?.throwIfAborted();
      const { rows } = await db.query<{ active: string; settled: string }>(
        "SELECT count(*) FILTER (WHERE s.status = 'active') AS active, count(*) FILTER (WHERE s.status NOT IN ('pending', 'provisioning')) AS settled FROM services s JOIN invoices i ON i.id = s.invoice_id WHERE i.invoice_no = ANY($1)",
        [numbers],
      );
      active = Number(rows[0]?.active ?? 0);
      const now = Number(rows[0]?.settled ?? 0);
      if (now !== settled) lastProgress = performance.now();
      settled = now;
      if (settled >= numbers.length || performance.now() - lastProgress > STALL_MS) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const activeSeconds = (performance.now() - started) / 1000;
    return { ...result, active, activeSeconds, provisionedPerSecond: active / activeSeconds };
  } finally {
    await db.end();
  }
}

async function main(): Promise<void> {
  const baseUrl = process.env.BENCH_URL ?? 'http://127.0.0.1:8090';
  const r = await runPurchases({
    baseUrl,
    adminUsername: process.env.ADMIN_USERNAME ?? 'admin',
    adminPassword: process.env.ADMIN_PASSWORD ?? '',
    upstreamControlUrl: process.env.BENCH_UPSTREAM_URL ?? 'http://127.0.0.1:18205',
    total: Number(process.env.BENCH_PURCHASES ?? 200),
    concurrency: Number(process.env.BENCH_PURCHASE_CONNECTIONS ?? process.env.BENCH_CONNECTIONS ?? 16),
    ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : {}),
    log: (m) => console.log(`[purchases] ${m}`),
  });
  console.log(
    `${r.total - r.failed} purchases (invoice + balance payment) through ${baseUrl} in ${r.seconds.toFixed(1)} s: ${r.perSecond.toFixed(1)}/s, ${r.concurrency} at once`,
  );
  if (r.activeSeconds !== undefined) {
    console.log(`${r.active} of ${r.total - r.failed} services active ${r.activeSeconds.toFixed(1)} s after the first purchase: ${r.provisionedPerSecond?.toFixed(1)} provisioned/s`);
  }
  if (r.failed > 0) {
    console.error(`${r.failed} purchases failed:\n${r.errors.map((e) => `  ${e}`).join('\n')}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  });
}

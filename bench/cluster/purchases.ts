// Purchases per second through one entry URL (the cluster's balancer or `npm run dev`'s API):
//   BENCH_URL=http://127.0.0.1:8090 ADMIN_PASSWORD=… [DATABASE_URL=…] node --import tsx bench/cluster/purchases.ts
// Each purchase is a new client's invoice for the demo upstream cloud server without upstream stock limit, paid from the
// balance (the admin recharges every client first, untimed). With DATABASE_URL it also waits
// until every service is active and prints the provisioning rate.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const base = process.env.BENCH_URL ?? 'http://127.0.0.1:8090';
const total = Number(process.env.BENCH_PURCHASES ?? 200);
const concurrency = Number(process.env.BENCH_CONNECTIONS ?? 16);

async function call(method: string, path: string, body?: unknown, token?: string) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as { code: number; message: string; data: Record<string, unknown> };
  if (res.status >= 500 || json.code !== 0) throw new Error(`${method} ${path}: ${res.status} ${json.code} ${json.message}`);
  return json.data;
}

async function pool<T>(items: T[], fn: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await fn(items[next++] as T);
  }));
}

const admin = (await call('POST', '/api/v2/admin/login', { username: process.env.ADMIN_USERNAME ?? 'admin', password: process.env.ADMIN_PASSWORD })).access_token as string;
const products = (await call('GET', '/api/v2/site/products', undefined)) as unknown as { list: Array<{ id: number; name: string }> };
const product = products.list.find((p) => p.name.includes('美国洛杉矶云服务器'));
if (!product) throw new Error('demo upstream product not found');
// Enough local stock, upstream hosts and upstream credit for every purchase.
await call('PUT', `/api/v2/admin/products/${product.id}`, { stock_control: false }, admin);
const upstream = process.env.BENCH_UPSTREAM_URL ?? 'http://127.0.0.1:18205';
for (const [path, body] of [['seed-hosts', `count=${total + 10}`], ['credit', 'amount=100000000.00']] as const) {
  const res = await fetch(`${upstream}/__control/${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  if (!res.ok) throw new Error(`upstream sandbox ${path}: ${res.status} ${await res.text()}`);
}
const clients: Array<{ token: string; invoiceNo?: string }> = [];
await pool(Array.from({ length: total }, (_, i) => i), async () => {
  const reg = await call('POST', '/api/v2/client/register', { email: `bench-${randomBytes(6).toString('hex')}@example.com`, password: 'bench-password-1' });
  const user = reg.user as { id: number };
  await call('POST', `/api/v2/admin/users/${user.id}/recharges`, { amount: '1000.00', remark: 'bench' }, admin);
  clients.push({ token: reg.access_token as string });
});
const started = performance.now();
await pool(clients, async (client) => {
  const invoice = await call('POST', '/api/v2/client/invoices', { product_id: product.id, billing_period: 'monthly' }, client.token);
  await call('POST', `/api/v2/client/invoices/${invoice.id}/pay/balance`, undefined, client.token);
  client.invoiceNo = invoice.invoice_no as string;
});
const seconds = (performance.now() - started) / 1000;
console.log(`${total} purchases (invoice + balance payment) through ${base} in ${seconds.toFixed(1)} s: ${(total / seconds).toFixed(1)}/s, ${concurrency} at once`);
if (process.env.DATABASE_URL) {
  const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  const numbers = clients.map((c) => c.invoiceNo);
  for (;;) {
    const { rows } = await db.query<{ active: string }>(
      "SELECT count(*) AS active FROM services s JOIN invoices i ON i.id = s.invoice_id WHERE i.invoice_no = ANY($1) AND s.status = 'active'",
      [numbers],
    );
    if (Number(rows[0]?.active) >= total) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const all = (performance.now() - started) / 1000;
  console.log(`all ${total} services active ${all.toFixed(1)} s after the first purchase: ${(total / all).toFixed(1)} provisioned/s`);
  await db.end();
}

// Baseline for the bench: the same database work as the API's routes with nothing around it
// (no framework, no auth, no validation, no ORM). Run as its own process by bench/run.ts.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { USERS_COUNT_SQL, USERS_PAGE_SQL } from './lib/bare-sql.js';
import { bareAnswerKey } from './lib/bench-request.js';
import { bareNotify, barePayBalance } from './money/bare-money.js';

type UserRecord = {
  id: number;
  email: string | null;
  phone: string | null;
  nickname: string;
  status: string;
  email_verified_at: Date | null;
  is_verified: number;
  verification_status: number | null;
  last_login_at: Date | null;
  created_at: Date;
};

function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

function envelope(data: unknown) {
  return { code: 0, message: '成功', data, timestamp: Math.floor(Date.now() / 1000) };
}

type InvoiceRecord = {
  id: number;
  invoice_no: string;
  type: string;
  status: string;
  subject: string;
  amount: string;
  refunded_amount: string;
  paid_at: Date | null;
  created_at: Date;
};

/**
 * The catalogue baseline answers from memory: `BARE_FIXTURES` names a JSON file mapping a
 * request (`bareAnswerKey`: method, target, a POST's body) to the `data` the API answered for it
 * (written by bench/lib/catalogue-fixtures.ts). Like the API's remembered answers, each answer's
 * bytes are encoded once a second (its envelope's timestamp) and then sent as they are.
 */
function readFixtures(): Map<string, unknown> {
  const file = process.env.BARE_FIXTURES;
  if (!file) return new Map();
  return new Map(Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function createEncodedAnswers(fixtures: Map<string, unknown>) {
  const encoded = new Map<string, { second: number; bytes: Buffer }>();
  return (key: string): Buffer | null => {
    if (!fixtures.has(key)) return null;
    const second = Math.floor(Date.now() / 1000);
    let answer = encoded.get(key);
    if (answer?.second !== second) {
      answer = { second, bytes: Buffer.from(JSON.stringify({ code: 0, message: '成功', data: fixtures.get(key), timestamp: second })) };
      encoded.set(key, answer);
    }
    return answer.bytes;
  };
}

function startBareServer() {
  const answerFor = createEncodedAnswers(readFixtures());
  // The storefront origins answered for (CORS), as the API's `CORS_ORIGINS`.
  const corsOrigins = new Set((process.env.BARE_CORS_ORIGINS ?? '').split(',').filter(Boolean));
  // The client invoice list: the statements the API sends, captured at seed time (bench/lib/seed.ts).
  const clientStatements = JSON.parse(process.env.BARE_CLIENT_STATEMENTS ?? '[]') as { text: string; values: unknown[] }[];
  const clientCountSql = clientStatements.find((q) => /count\(/i.test(q.text));
  const clientPageSql = clientStatements.find((q) => !/count\(/i.test(q.text));
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_MAX ?? 10) });
  pool.on('error', (err) => console.error(`pool error: ${err.message}`));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (req.method === 'GET' && path === '/health') {
      await pool.query('SELECT 1');
      return send(res, 200, envelope({ status: 'ok', database: 'ok' }));
    }
    if (req.method === 'GET' && path === '/users') {
      const [count, rows] = await Promise.all([
        pool.query<{ count: string }>(USERS_COUNT_SQL),
        pool.query<UserRecord>(USERS_PAGE_SQL),
      ]);
      // The same public fields the API's user resource exposes (no password hash).
      const list = rows.rows.map((u) => ({
        id: u.id,
        email: u.email,
        phone: u.phone,
        nickname: u.nickname,
        status: u.status,
        email_verified: u.email_verified_at !== null,
        is_verified: u.is_verified,
        verification_status: u.verification_status,
        last_login_at: u.last_login_at,
        created_at: u.created_at,
      }));
      return send(res, 200, envelope({ list, total: Number(count.rows[0]?.count ?? 0), page: 1, page_size: 20 }));
    }
    if (req.method === 'GET' && path === '/client/invoices' && clientCountSql && clientPageSql) {
      const [count, rows] = await Promise.all([pool.query<{ count?: string; n?: number }>(clientCountSql.text, clientCountSql.values), pool.query<InvoiceRecord>(clientPageSql.text, clientPageSql.values)]);
      // The fields of the API's invoice summary resource.
      const list = rows.rows.map((i) => ({
        id: i.id,
        invoice_no: i.invoice_no,
        type: i.type,
        type_label: i.type,
        status: i.status,
        status_label: i.status,
        subject: i.subject,
        amount: i.amount,
        refunded_amount: i.refunded_amount,
        currency: 'CNY',
        paid_at: i.paid_at,
        created_at: i.created_at,
      }));
      return send(res, 200, envelope({ list, total: Number(count.rows[0]?.n ?? count.rows[0]?.count ?? 0), page: 1, page_size: 20 }));
    }
    if (path?.startsWith('/api/v2/site/')) {
      const target = req.url ?? '/';
      const bytes = answerFor(bareAnswerKey(req.method ?? 'GET', target, req.method === 'POST' ? await readBody(req) : undefined));
      if (bytes) {
        const origin = req.headers.origin;
        const cors = origin !== undefined && corsOrigins.has(origin) ? { 'access-control-allow-origin': origin, 'access-control-expose-headers': 'X-Request-Id', vary: 'Origin' } : {};
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.byteLength, ...cors });
        res.end(bytes);
        return;
      }
    }
    const payBalance = req.method === 'POST' ? /^\/pay-balance\/(\d+)$/.exec(path ?? '') : null;
    if (payBalance) return barePayBalance(pool, Number(payBalance[1]), res, send);
    if (req.method === 'POST' && path === '/notify') return bareNotify(pool, req, res, send);
    send(res, 404, { code: 40400, message: 'not found', data: null, timestamp: Math.floor(Date.now() / 1000) });
  }

  // A database going away under load fails every request: report a few, then only the count.
  let failed = 0;
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      failed += 1;
      if (failed <= 3) console.error(`request failed: ${err instanceof Error ? err.message : String(err)}${failed === 3 ? ' (further failures counted only)' : ''}`);
      if (!res.headersSent) send(res, 500, { code: 50000, message: 'internal error', data: null, timestamp: 0 });
      else res.destroy();
    });
  });
  server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');

  const stop = () => {
    if (failed > 3) console.error(`${failed} requests failed in total`);
    server.close(() => {
      void pool.end().finally(() => process.exit(0));
    });
    server.closeAllConnections();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

startBareServer();
